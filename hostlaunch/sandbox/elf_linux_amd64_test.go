package sandbox

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
)

// int80ELF returns a minimal static x86-64 executable (staticELF) that
// makes the i386 socket system call (number 359, socket(AF_INET,
// SOCK_STREAM, 0)) through the int 0x80 gate and then exits through the
// native x86-64 exit: with status 0 when the socket was created, 1 when
// the call failed. It is the measured bypass of a seccomp blocklist that
// compares x86-64 numbers only: with the architecture guard the process
// must die by SIGSYS at the int 0x80. On a kernel without the i386 entry
// (IA32 emulation off) the int 0x80 itself faults (SIGSEGV).
func int80ELF() []byte {
	return staticELF([]byte{
		0xb8, 0x67, 0x01, 0x00, 0x00, // mov eax, 359   ; i386 __NR_socket
		0xbb, 0x02, 0x00, 0x00, 0x00, // mov ebx, 2     ; AF_INET
		0xb9, 0x01, 0x00, 0x00, 0x00, // mov ecx, 1     ; SOCK_STREAM
		0x31, 0xd2, //                   xor edx, edx   ; protocol 0
		0xcd, 0x80, //                   int 0x80       ; i386 system call
		0x31, 0xff, //                   xor edi, edi   ; status 0 ...
		0x85, 0xc0, //                   test eax, eax
		0x79, 0x05, //                   jns exit       ; ... if eax >= 0 (a descriptor)
		0xbf, 0x01, 0x00, 0x00, 0x00, // mov edi, 1     ; else status 1
		0xb8, 0x3c, 0x00, 0x00, 0x00, // exit: mov eax, 60 ; x86-64 __NR_exit
		0x0f, 0x05, //                   syscall
	})
}

// x32ELF returns a minimal static x86-64 executable (staticELF) that makes
// the x32 socket system call (x86-64's 41 with bit 30 set) through the
// native syscall instruction and then exits 0 whatever it returned (a
// descriptor, or ENOSYS on kernels without the x32 ABI). With the
// architecture guard the process must die by SIGSYS before that.
func x32ELF() []byte {
	return staticELF([]byte{
		0xb8, 0x29, 0x00, 0x00, 0x40, // mov eax, 0x40000029 ; x32 __NR_socket
		0xbf, 0x02, 0x00, 0x00, 0x00, // mov edi, 2          ; AF_INET
		0xbe, 0x01, 0x00, 0x00, 0x00, // mov esi, 1          ; SOCK_STREAM
		0x31, 0xd2, //                   xor edx, edx        ; protocol 0
		0x0f, 0x05, //                   syscall
		0xb8, 0x3c, 0x00, 0x00, 0x00, // mov eax, 60         ; x86-64 __NR_exit
		0x31, 0xff, //                   xor edi, edi        ; status 0
		0x0f, 0x05, //                   syscall
	})
}

// staticELF wraps x86-64 machine code in the smallest executable Linux
// runs: an ELF header, one PT_LOAD program header mapping the whole file
// read+execute at 0x400000, and the code right after them as the entry
// point. No sections, no interpreter, no libc: built in Go so that the
// tests need no assembler or C compiler.
func staticELF(code []byte) []byte {
	const (
		base    = 0x400000 // load address of the file's first byte
		ehsize  = 64       // sizeof(Elf64_Ehdr)
		phsize  = 56       // sizeof(Elf64_Phdr)
		codeOff = ehsize + phsize
	)
	size := uint64(codeOff + len(code))
	hdr := elf.Header64{
		Type:      uint16(elf.ET_EXEC),
		Machine:   uint16(elf.EM_X86_64),
		Version:   uint32(elf.EV_CURRENT),
		Entry:     base + codeOff,
		Phoff:     ehsize,
		Ehsize:    ehsize,
		Phentsize: phsize,
		Phnum:     1,
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	hdr.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	hdr.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	hdr.Ident[elf.EI_OSABI] = byte(elf.ELFOSABI_NONE)
	prog := elf.Prog64{
		Type:   uint32(elf.PT_LOAD),
		Flags:  uint32(elf.PF_R | elf.PF_X),
		Off:    0,
		Vaddr:  base,
		Paddr:  base,
		Filesz: size,
		Memsz:  size,
		Align:  0x1000,
	}
	var b bytes.Buffer
	// Writes to a bytes.Buffer of fixed-size structs cannot fail.
	_ = binary.Write(&b, binary.LittleEndian, &hdr)
	_ = binary.Write(&b, binary.LittleEndian, &prog)
	b.Write(code)
	return b.Bytes()
}
