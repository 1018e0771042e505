//go:build !amd64

package snapshot

const useAVX2 = false

func adlerRunAVX2(p *byte, blocks int, out *[12]uint64) { panic("no AVX2") }
