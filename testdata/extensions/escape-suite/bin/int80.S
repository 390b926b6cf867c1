/* int80.S: a static x86-64 program that opens a TCP connection through the
 * i386 system call ABI (int $0x80: socket = 359, connect = 362), which a
 * seccomp filter that only knows x86-64 numbers does not see.
 *
 *   int80 PORT    connect to 127.0.0.1:PORT
 *
 * Exit status (through the native exit system call): 0 connected;
 * 1..127 socket failed with that errno; 128+errno connect failed;
 * 126 no PORT. Built by testdata/vsix/build.sh:
 *   gcc -nostdlib -static -no-pie -s -Wl,--build-id=none -o bin/int80 bin/int80.S */
	.globl _start
	.text
_start:
	cmpq	$2, (%rsp)		/* argc */
	jl	usage
	movq	16(%rsp), %rsi		/* argv[1] */
	xorl	%eax, %eax
digit:
	movzbl	(%rsi), %edx
	testl	%edx, %edx
	jz	parsed
	subl	$'0', %edx
	imull	$10, %eax, %eax
	addl	%edx, %eax
	incq	%rsi
	jmp	digit
parsed:
	xchgb	%al, %ah		/* htons */
	movw	%ax, sa+2
	movl	$359, %eax		/* i386 socket(AF_INET, SOCK_STREAM, 0) */
	movl	$2, %ebx
	movl	$1, %ecx
	xorl	%edx, %edx
	int	$0x80
	testl	%eax, %eax
	js	sockfail
	movl	%eax, %ebx		/* i386 connect(fd, &sa, 16) */
	movl	$362, %eax
	movl	$sa, %ecx		/* a 32-bit address: the binary is not PIE */
	movl	$16, %edx
	int	$0x80
	testl	%eax, %eax
	js	connfail
	xorl	%edi, %edi
exit:
	movl	$60, %eax		/* x86-64 exit */
	syscall
sockfail:
	negl	%eax
	movl	%eax, %edi
	jmp	exit
connfail:
	negl	%eax
	addl	$128, %eax
	movl	%eax, %edi
	jmp	exit
usage:
	movl	$126, %edi
	jmp	exit

	.data
sa:	.word	2			/* AF_INET */
	.word	0			/* port, network order */
	.byte	127, 0, 0, 1
	.zero	8
	.section .note.GNU-stack,"",@progbits
