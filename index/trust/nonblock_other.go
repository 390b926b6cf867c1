//go:build !unix

package trust

const syscallNonblock = 0
