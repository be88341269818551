package memory

import "unsafe"

// TouchPages writes (a zero) to each page of s, which make has zeroed
// already, in order. Hash table slots are read before they are written (a
// probe or a rehash reads a slot to find it empty), and the first read of a
// page the process has never touched maps the kernel's shared zero page,
// which the first write then has to replace: two page faults where a write
// alone takes one, in an order as random as the probes. Fresh pages are what
// a table that grows gets (it grows into memory its old slots never held):
// lineitem's 6 M-group GROUP BY under 512 MiB on a server just started took
// a quarter of its ~240,000 faults in the rehash of slots, each costing
// microseconds in a virtual machine, and 15% fewer faults and CPU with its
// slots touched first. On a page already resident it costs a store to a
// cache line, 1/512 of the make's clearing of 8-byte elements. Only for
// memory every page of which will be used: touching the spare capacity of
// aggregate states, grown ahead of the groups, faulted in pages the groups
// never reached. Slices shorter than two pages are left alone.
func TouchPages[T any](s []T) {
	var zero T
	step := max(1, pageSize/int(unsafe.Sizeof(zero)))
	if len(s) < 2*step {
		return
	}
	for i := 0; i < len(s); i += step {
		s[i] = zero
	}
}

// pageSize is the smallest page the kernel maps; a larger one is touched
// more often than it needs, no harm.
const pageSize = 4096
