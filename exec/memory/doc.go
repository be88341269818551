// Package memory is what buffering operators hold and where it goes when
// it does not fit: the process-wide MemoryPool and each statement's Memory
// account (a reservation that does not fit waits, then fails with 53200),
// the column buffers rows are kept in (ColBuf: NULL masks kept aside
// across resets, row hashing and equality), and spill files in the temp
// space (SpillSpace, SpillFile: blocks of column-encoded rows, read back
// in order).
//
// It knows no operators: exec, exec/hashtab and exec/aggregate build on
// it.
package memory
