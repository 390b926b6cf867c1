package vsix

import (
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// checkData makes one streaming pass over every entry's data, which
// checkLayout found to tile the archive. It records size, CRC-32 and
// deflate problems in rep, and returns only I/O errors.
func (a *Archive) checkData(rep *Report) error {
	// Entries are independent: verify them on up to GOMAXPROCS goroutines,
	// and report problems in central-directory order.
	found := make([][]Problem, len(a.files))
	workers := min(runtime.GOMAXPROCS(0), maxWorkers, len(a.files))
	errs := make([]error, workers)
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			buf := make([]byte, 32<<10)
			var er entryReader
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(a.files) {
					return
				}
				err := a.verify(&er, i, buf)
				var pe *ProblemsError
				switch {
				case err == nil:
				case errors.As(err, &pe):
					found[i] = pe.Problems
				default:
					errs[w] = err
					stop.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, ps := range found {
		rep.Problems = append(rep.Problems, ps...)
	}
	return nil
}

// maxWorkers caps the goroutines of Open's data pass.
const maxWorkers = 8

// verify reads all of entry i's data through er, and returns nil, a
// *ProblemsError, or an I/O error.
func (a *Archive) verify(er *entryReader, i int, buf []byte) error {
	if err := a.reset(er, i); err != nil {
		return err
	}
	defer er.release()
	for {
		if _, err := er.Read(buf); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}
