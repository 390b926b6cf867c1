package openvsxtest

import (
	"net/http"
	"os"
	"slices"
)

// ControlPath is where the fixture serves its extension control list, the
// path of Open VSX's copy in open-vsx/publish-extensions.
const ControlPath = "/extension-control/extensions.json"

// ControlList is a small extension control list in the shape of Open
// VSX's extension-control/extensions.json: a publisher-wide malicious
// entry, a malicious extension, a deprecated one with its replacement
// and install disallowed, and one deprecated with true.
const ControlList = `{
    "malicious": [
        "evil-publisher",
        "airvsx-demo.bad-actor"
    ],
    "deprecated": {
        "airvsx-demo.old-tool": {
            "disallowInstall": true,
            "extension": {
                "id": "airvsx-demo.new-tool",
                "displayName": "New Tool"
            }
        },
        "airvsx-demo.tired-theme": true
    },
    "search": []
}
`

// SetControl makes the server answer ControlPath with data, byte for
// byte (nil: 404, as before any list is set). Faults apply to it as to
// any path.
func (s *Server) SetControl(data []byte) {
	d := slices.Clone(data)
	s.h.control.Store(&d)
}

// control answers ControlPath: the list SetControl set, else the file
// Options.ControlFile names, read again on every request (so that the demo
// can change it while the server runs).
func (h *handler) controlList() (reply, bool) {
	var data []byte
	if p := h.control.Load(); p != nil && *p != nil {
		data = *p
	} else if h.opts.ControlFile != "" {
		b, err := os.ReadFile(h.opts.ControlFile)
		if err != nil {
			return errorReply(http.StatusNotFound, "control list: "+err.Error()), true
		}
		data = b
	} else {
		return reply{}, false
	}
	return reply{status: http.StatusOK, body: data, kind: kindOther, header: http.Header{
		"Content-Type": {"application/json; charset=utf-8"},
	}}, true
}
