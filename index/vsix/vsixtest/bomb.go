package vsixtest

import (
	"bytes"
	"compress/flate"
	"hash/crc32"
	"sync"
)

// zeroChunkSize is how many zero bytes one chunk of a zero stream inflates
// to.
const zeroChunkSize = 4 << 20

// zeroChunk is a byte-aligned run of non-final deflate blocks inflating to
// zeroChunkSize zeros (about 4 KB: a ratio of about 1027). Its back
// references reach only zeros, so repeating it yields a valid stream.
var zeroChunk = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		panic(err) // the level is valid
	}
	w.Write(make([]byte, zeroChunkSize))
	w.Flush() // ends the blocks, byte-aligned, with an empty stored block
	return b.Bytes()
})

// zeroStream returns a deflate stream that inflates to chunks*zeroChunkSize
// zeros, padded with pad empty stored blocks (5 bytes each) to lower its
// compression ratio. Building it never writes the inflated bytes.
func zeroStream(chunks, pad int) []byte {
	c := zeroChunk()
	b := make([]byte, 0, chunks*len(c)+pad*5+2)
	for range chunks {
		b = append(b, c...)
	}
	for range pad {
		b = append(b, 0, 0, 0, 0xff, 0xff) // non-final stored block of length 0
	}
	return append(b, 3, 0) // final fixed-Huffman block holding only end-of-block
}

var zerosCRCs sync.Map // number of chunks -> uint32

// zerosCRC returns the CRC-32 of chunks*zeroChunkSize zero bytes.
func zerosCRC(chunks int) uint32 {
	if v, ok := zerosCRCs.Load(chunks); ok {
		return v.(uint32)
	}
	zero := make([]byte, zeroChunkSize)
	var crc uint32
	for range chunks {
		crc = crc32.Update(crc, crc32.IEEETable, zero)
	}
	zerosCRCs.Store(chunks, crc)
	return crc
}
