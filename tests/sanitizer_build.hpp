// DLSIM_SANITIZED: 1 when this test is built with a sanitizer whose allocator replaces
// glibc's malloc (AddressSanitizer, ThreadSanitizer, MemorySanitizer; GCC and Clang
// spell it differently), else 0. Tests that count or inspect glibc's own allocations
// (allocation_test, heap_prefault_test) have nothing to look at then.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DLSIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define DLSIM_SANITIZED 1
#endif
#endif
#ifndef DLSIM_SANITIZED
#define DLSIM_SANITIZED 0
#endif
