// Package flock takes the advisory locks with which one airvsx process at
// a time writes a registry or an extensions directory: flock(2) on Unix,
// without waiting, on a file the lock leaves behind as it was (a
// directory, or a marker file), and the locks with which a live process
// marks its temporary directories (internal/tempdir). Closing the file
// releases the lock.
package flock
