// MappedFile's list of live mappings (MappedFile::path_at) and the SIGBUS report built on
// it (models/data/mapped_file_fault.hpp): a read past the end of a file truncated under its
// mapping is one line naming the file and exit code 1; any other SIGBUS keeps its default
// action. The faults happen in a forked child, whose exit status and stderr are checked.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "models/data/mapped_file.hpp"
#include "models/data/mapped_file_fault.hpp"
#include "scratch_path.hpp"

using dlsim::models::MappedFile;

namespace {

constexpr std::size_t kPage = 4096;

// A file of `size` bytes 'x'.
std::string file_of(const std::string& stem, std::size_t size) {
  const auto path = dlsim::test::scratch_path(stem).string();
  std::ofstream(path, std::ios::binary) << std::string(size, 'x');
  return path;
}

struct ChildEnd {
  int status = 0;      // as waitpid gives it
  std::string stderr;  // all the child wrote there
};

// Runs f in a forked child with its stderr piped to the parent and no core dump; the
// child exits 0 if f returns.
ChildEnd in_child(const std::function<void()>& f) {
  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(pipe_ends[0]);
    ::dup2(pipe_ends[1], STDERR_FILENO);
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    f();
    ::_exit(0);
  }
  ::close(pipe_ends[1]);
  ChildEnd end;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_ends[0], buffer, sizeof buffer)) > 0;)
    end.stderr.append(buffer, std::size_t(n));
  ::close(pipe_ends[0]);
  REQUIRE(::waitpid(pid, &end.status, 0) == pid);
  return end;
}

// The child ended by SIGBUS's default action, silently.
void check_default_action(const ChildEnd& end) {
  REQUIRE(WIFSIGNALED(end.status));
  CHECK(WTERMSIG(end.status) == SIGBUS);
  CHECK(end.stderr.empty());
}

// Reads byte i of p, so that the compiler keeps the read.
unsigned char read_byte(const unsigned char* p, std::size_t i) {
  return *static_cast<const volatile unsigned char*>(p + i);
}

}  // namespace

TEST_CASE("mapped file: path_at names the file of a live mapping's bytes, and no other") {
  const auto a_path = file_of("a", 3 * kPage + 100);
  const auto b_path = file_of("b", 10);
  const unsigned char* a_data = nullptr;
  {
    const MappedFile a(a_path);
    const MappedFile b(b_path);
    a_data = a.data();
    REQUIRE(MappedFile::path_at(a.data()) != nullptr);
    CHECK(std::string(MappedFile::path_at(a.data())) == a_path);
    CHECK(std::string(MappedFile::path_at(a.data() + a.size() - 1)) == a_path);
    CHECK(std::string(MappedFile::path_at(b.data() + 9)) == b_path);
    CHECK(MappedFile::path_at(a.data() + a.size()) == nullptr);  // the mapped page's tail
    CHECK(MappedFile::path_at(&a) == nullptr);
    CHECK(MappedFile::path_at(nullptr) == nullptr);
  }
  CHECK(MappedFile::path_at(a_data) == nullptr);  // unmapped: no longer listed

  // An empty file maps nothing and lists nothing; places freed are taken again.
  const auto empty_path = file_of("empty", 0);
  const MappedFile empty(empty_path);
  CHECK(empty.size() == 0);
  for (int round = 0; round < 2 * MappedFile::kMostListed; ++round) {
    const MappedFile again(b_path);
    REQUIRE(MappedFile::path_at(again.data()) != nullptr);
  }
}

TEST_CASE("mapped file: a read past a truncation is one line naming the file and exit 1") {
  const auto path = file_of("truncated", 3 * kPage);
  const ChildEnd end = in_child([&] {
    dlsim::models::report_faults_in_mapped_files();
    const MappedFile m(path);
    if (read_byte(m.data(), 2 * kPage) != 'x') ::_exit(3);  // mapped and readable
    std::filesystem::resize_file(path, 0);
    read_byte(m.data(), 2 * kPage);  // faults
  });
  REQUIRE(WIFEXITED(end.status));
  CHECK(WEXITSTATUS(end.status) == 1);
  CHECK(end.stderr == "dlsim: error: " + path +
                          ": the file could no longer be read during the run (another program "
                          "truncated it, or the disk failed); the run cannot go on\n");
}

// The run's threads may all read the truncated file at once (an evaluation's chunks): each
// faults, and only one may report, or stderr gets the line twice (or two interleaved).
TEST_CASE("mapped file: threads faulting at once give one line between them") {
  const auto path = file_of("truncated_threads", 3 * kPage);
  constexpr int kThreads = 8;
  for (int round = 0; round < 20; ++round) {
    const ChildEnd end = in_child([&] {
      dlsim::models::report_faults_in_mapped_files();
      const MappedFile m(path);
      if (read_byte(m.data(), 2 * kPage) != 'x') ::_exit(3);
      std::filesystem::resize_file(path, 0);
      std::atomic<int> ready{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&] {
          ready.fetch_add(1);
          while (ready.load() < kThreads) {
          }
          read_byte(m.data(), 2 * kPage);  // faults, in every thread at about once
        });
      for (auto& thread : threads) thread.join();
    });
    INFO("round " << round);
    REQUIRE(WIFEXITED(end.status));
    CHECK(WEXITSTATUS(end.status) == 1);
    REQUIRE(end.stderr == "dlsim: error: " + path +
                              ": the file could no longer be read during the run (another "
                              "program truncated it, or the disk failed); the run cannot go "
                              "on\n");
    std::ofstream(path, std::ios::binary) << std::string(3 * kPage, 'x');
  }
}

TEST_CASE("mapped file: any other SIGBUS keeps its default action under the report") {
  const auto path = file_of("raw", 3 * kPage);
  SECTION("a fault in a mapping that is not a MappedFile's") {
    const ChildEnd end = in_child([&] {
      dlsim::models::report_faults_in_mapped_files();
      const int fd = ::open(path.c_str(), O_RDONLY);
      void* p = ::mmap(nullptr, 3 * kPage, PROT_READ, MAP_PRIVATE, fd, 0);
      if (fd < 0 || p == MAP_FAILED) ::_exit(3);
      std::filesystem::resize_file(path, 0);
      read_byte(static_cast<const unsigned char*>(p), 2 * kPage);
    });
    check_default_action(end);
  }
  SECTION("a SIGBUS sent, not a fault") {
    const ChildEnd end = in_child([&] {
      dlsim::models::report_faults_in_mapped_files();
      const MappedFile m(path);
      ::raise(SIGBUS);
    });
    check_default_action(end);
  }
  SECTION("a SIGBUS sent with a mapped file's address in its information") {
    const ChildEnd end = in_child([&] {
      dlsim::models::report_faults_in_mapped_files();
      const MappedFile m(path);
      siginfo_t info{};
      info.si_signo = SIGBUS;
      info.si_code = SI_QUEUE;  // sent (< 0), which a process may send itself
      info.si_addr = const_cast<unsigned char*>(m.data());
      ::syscall(SYS_rt_tgsigqueueinfo, ::getpid(), ::gettid(), SIGBUS, &info);
    });
    check_default_action(end);
  }
}

namespace {

// The VmFlags line of the mapping that starts at `begin` in /proc/self/smaps, or "".
std::string vm_flags_of(const void* begin) {
  std::ifstream smaps("/proc/self/smaps");
  char start[32];
  std::snprintf(start, sizeof start, "%lx-", static_cast<unsigned long>(std::uintptr_t(begin)));
  bool in = false;
  for (std::string line; std::getline(smaps, line);) {
    if (line.rfind(start, 0) == 0) in = true;
    if (in && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

// Whether [p, p + 1 page) is mapped: mincore fails with ENOMEM on an unmapped page.
bool mapped(const void* p) {
  unsigned char resident = 0;
  const auto page = reinterpret_cast<void*>(std::uintptr_t(p) / kPage * kPage);
  return ::mincore(page, kPage, &resident) == 0 || errno != ENOMEM;
}

}  // namespace

TEST_CASE("mapped file: Pages::huge maps a long file at a 2 MiB boundary, for huge pages") {
  constexpr std::size_t kHuge = std::size_t(2) << 20;
  const auto path = dlsim::test::scratch_path("huge").string();
  const std::size_t size = 2 * kHuge + kHuge / 2 + 123;  // ends inside a page
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) bytes[i] = char(i * 7 % 251);
  std::ofstream(path, std::ios::binary) << bytes;
  // Advice needs a kernel with transparent huge pages; without, the mapping is the same.
  const bool thp = std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled");
  if (!thp) WARN("no transparent huge pages here: the MADV_HUGEPAGE flag is not checked");

  const unsigned char* data = nullptr;
  {
    const MappedFile m(path, MappedFile::Pages::huge);
    data = m.data();
    REQUIRE(m.size() == size);
    CHECK(std::uintptr_t(data) % kHuge == 0);
    CHECK(std::memcmp(data, bytes.data(), size) == 0);
    CHECK(std::string(MappedFile::path_at(data)) == path);
    CHECK(std::string(MappedFile::path_at(data + size - 1)) == path);
    CHECK(MappedFile::path_at(data + size) == nullptr);
    if (thp) CHECK(vm_flags_of(data).find(" hg") != std::string::npos);
    // The reservation's rest was given back: nothing is mapped after the file's last page.
    const std::size_t length = (size + kPage - 1) / kPage * kPage;
    CHECK(mapped(data + length - 1));
    CHECK_FALSE(mapped(data + length));
  }
  CHECK_FALSE(mapped(data));

  // A file shorter than one huge page is mapped as Pages::small would: no advice.
  const auto short_path = file_of("short", kHuge - 1);
  const MappedFile s(short_path, MappedFile::Pages::huge);
  CHECK(s.data()[kHuge - 2] == 'x');
  const std::string flags = vm_flags_of(s.data());
  CHECK_FALSE(flags.empty());
  CHECK(flags.find(" hg") == std::string::npos);
}
