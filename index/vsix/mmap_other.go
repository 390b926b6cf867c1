//go:build !unix

package vsix

import "os"

// mmapFile reads f whole where mapping is not available.
func mmapFile(f *os.File) ([]byte, func(), error) { return readAllFile(f) }
