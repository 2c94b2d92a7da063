// Valgrind 3.19 (Debian 12) writes to the signal mask that rt_sigsuspend is given. libdispatch
// passes a mask from its read-only data when a Swift program's async main parks the main
// thread, and valgrind dies with SIGSEGV. Preloaded, this hands the kernel a copy instead.
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
