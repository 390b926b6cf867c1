package vsix

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// checkData makes one streaming pass over every entry's data, after
// checking that no two entries' data overlap. It records size, CRC-32 and
// deflate problems in rep, and returns only I/O errors.
func (a *Archive) checkData(size int64, rep *Report) error {
	type span struct {
		start, end int64
		i          int
	}
	spans := make([]span, 0, len(a.files))
	for i, f := range a.files {
		off, err := f.DataOffset()
		if err != nil {
			if ioErr := (*ioError)(nil); errors.As(err, &ioErr) {
				return fmt.Errorf("read %s: %s: %w", label(a.name), a.entries[i].Name, ioErr.err)
			}
			rep.Errorf(f.Name, "", RuleNotZip, "local header: %v", err)
			continue
		}
		end := off + int64(f.CompressedSize64) // off < size + 2^17, CompressedSize64 <= size: no overflow
		if end > size {
			rep.Errorf(f.Name, "", RuleSizeLie, "data runs %d bytes past the end of the archive", end-size)
			continue
		}
		spans = append(spans, span{off, end, i})
	}
	slices.SortStableFunc(spans, func(x, y span) int { return cmp.Compare(x.start, y.start) })
	const localHeaderLen = 30
	for k := 1; k < len(spans); k++ {
		prev, s := spans[k-1], spans[k]
		if prev.end > s.start-localHeaderLen {
			rep.Errorf(a.files[s.i].Name, "", RuleOverlap, "data at offset %d overlaps %q (offsets %d to %d)",
				s.start, a.files[prev.i].Name, prev.start, prev.end)
		}
	}
	if len(rep.Problems) > 0 {
		return nil
	}

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
