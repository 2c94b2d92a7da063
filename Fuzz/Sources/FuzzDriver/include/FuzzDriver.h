#ifndef LOCKSTEP_FUZZ_DRIVER_H
#define LOCKSTEP_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): parses the command line and
/// runs `test` on every input. SwiftPM gives each executable its own entry point, so the
/// targets call this from their main instead of relying on libFuzzer's main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

#endif
