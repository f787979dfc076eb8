// A file truncated while it is mapped (MappedFile: the data cache's entries, the archives
// being decompressed) makes the next read past its new end fault with SIGBUS, as does a
// disk's read error on a mapped page. The dlsim command installs this report, which turns
// such a fault into one line and exit code 1 instead of a crash:
//   dlsim: error: <file>: the file could no longer be read during the run (...)
// The run cannot go on without the bytes; its rows so far stay in metrics.csv.partial
// (flushed row by row). Any other SIGBUS (at another address, or a signal sent) keeps its
// default action, so a fault of the program itself is not disguised as a file's.
#pragma once

namespace dlsim::models {

/// Installs the SIGBUS handler (sigaction; replaces any earlier one).
void report_faults_in_mapped_files();

}  // namespace dlsim::models
