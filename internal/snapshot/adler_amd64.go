package snapshot

import "golang.org/x/sys/cpu"

// useAVX2: adlerRunAVX2 can run here.
var useAVX2 = cpu.X86.HasAVX2

// adlerRunAVX2 sums blocks (at most adlerRunBlocks) blocks of 32 bytes
// from p into out (adler.go says how).
//
//go:noescape
func adlerRunAVX2(p *byte, blocks int, out *[12]uint64)
