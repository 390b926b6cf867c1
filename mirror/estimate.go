package mirror

// What fetching a plan asks of the upstream, told before it starts.

import (
	"math"
	"time"

	"github.com/airvsx/airvsx/index"
)

// Requests counts the requests fetching a plan's new items sends
// upstream, as Open VSX serves its files (from storage it redirects to).
// A package already in the store, from a sync that stopped, costs less.
type Requests struct {
	// API is the requests to the upstream's API host: one per new item
	// (asking where its package lives), and one per signing key the
	// registry has not pinned yet.
	API int `json:"api"`
	// Storage is the requests to where the files live: each new package,
	// its .sha256 and its signature. An upstream that serves its files
	// itself gets these on its API host instead.
	Storage int `json:"storage"`
}

// Total is API plus Storage.
func (r Requests) Total() int { return r.API + r.Storage }

// Duration is how long the API host's requests take at rate requests per
// second, the pace the client keeps for the upstream: the least a sync's
// fetching takes, waits for a busy upstream aside. Storage requests are
// not paced (their time is the link's). rate <= 0 is 0.
func (r Requests) Duration(rate float64) time.Duration {
	if rate <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(float64(r.API) / rate * float64(time.Second)))
}

// estimateRequests counts the requests fetching plan's new items sends,
// the keys in pinned needing none.
func estimateRequests(plan *Plan, pinned []index.UpstreamKey) Requests {
	var r Requests
	keys := map[string]bool{}
	for _, k := range pinned {
		keys[k.ID] = true
	}
	for _, it := range plan.New {
		files := it.Meta.Files
		r.API++
		r.Storage++ // the package
		if files["sha256"] == "" {
			continue // rejected once the package is in: nothing to check it against
		}
		r.Storage++
		if files["signature"] == "" {
			continue
		}
		r.Storage++
		if u := files["publicKey"]; u != "" && !keys[keyIDFromURL(u)] {
			keys[keyIDFromURL(u)] = true
			r.API++
		}
	}
	return r
}
