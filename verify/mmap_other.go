//go:build !unix

package verify

import (
	"errors"
	"os"
)

// mapFile is not available here: callers read the file instead.
func mapFile(*os.File, int64) ([]byte, func(), error) {
	return nil, nil, errors.New("memory mapping not supported")
}
