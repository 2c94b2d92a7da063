// The declaration in include/FuzzDriver.h is all this module provides; libFuzzer defines it.
