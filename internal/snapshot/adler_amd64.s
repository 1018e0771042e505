#include "textflag.h"

// The weights of a block's bytes, 32 … 1, and sixteen 16-bit ones.
DATA adlerTaps<>+0(SB)/8, $0x191a1b1c1d1e1f20
DATA adlerTaps<>+8(SB)/8, $0x1112131415161718
DATA adlerTaps<>+16(SB)/8, $0x090a0b0c0d0e0f10
DATA adlerTaps<>+24(SB)/8, $0x0102030405060708
GLOBL adlerTaps<>(SB), RODATA|NOPTR, $32
DATA adlerOnes<>+0(SB)/8, $0x0001000100010001
DATA adlerOnes<>+8(SB)/8, $0x0001000100010001
DATA adlerOnes<>+16(SB)/8, $0x0001000100010001
DATA adlerOnes<>+24(SB)/8, $0x0001000100010001
GLOBL adlerOnes<>(SB), RODATA|NOPTR, $32

// func adlerRunAVX2(p *byte, blocks int, out *[12]uint64)
TEXT ·adlerRunAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), DI
	VPXOR Y0, Y0, Y0 // zero
	VPXOR Y1, Y1, Y1 // byte sums, 4 × 64 bits
	VPXOR Y2, Y2, Y2 // the sums before each block, 4 × 64 bits
	VPXOR Y3, Y3, Y3 // weighted bytes, 8 × 32 bits
	VMOVDQU adlerTaps<>(SB), Y4
	VMOVDQU adlerOnes<>(SB), Y5
	TESTQ CX, CX
	JZ done

loop:
	VMOVDQU (SI), Y6
	VPADDQ Y1, Y2, Y2
	VPSADBW Y0, Y6, Y7
	VPADDQ Y7, Y1, Y1
	VPMADDUBSW Y4, Y6, Y8
	VPMADDWD Y5, Y8, Y8
	VPADDD Y8, Y3, Y3
	ADDQ $32, SI
	DECQ CX
	JNZ loop

done:
	VMOVDQU Y1, 0(DI)
	VMOVDQU Y2, 32(DI)
	VMOVDQU Y3, 64(DI)
	VZEROUPPER
	RET
