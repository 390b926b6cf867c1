package trust

import "testing"

// TestNames: the chain names root.json, timestamp.json, every catalog and
// the versioned files up to the verified versions; nothing else.
func TestNames(t *testing.T) {
	tr := &Trusted{Root: RoleInfo{Version: 2}, Timestamp: RoleInfo{Version: 5}, Snapshot: RoleInfo{Version: 4}, Targets: RoleInfo{Version: 3}}
	hex := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"root.json", true},
		{"timestamp.json", true},
		{"1.root.json", true},
		{"2.root.json", true},
		{"3.root.json", false},
		{"3.targets.json", true},
		{"4.targets.json", false},
		{"4.snapshot.json", true},
		{"5.snapshot.json", false},
		{"0.root.json", false},
		{"01.root.json", false},
		{"5.timestamp.json", false},
		{"99999999999999999999.root.json", false},
		{"targets/" + hex + ".catalog.json", true},
		{"targets/" + hex[:63] + ".catalog.json", false},
		{"targets/" + hex + ".catalog.json.bak", false},
		{"catalog.json", false},
		{"evil.html", false},
		{"junk/1.root.json", false},
	} {
		if got := tr.Names(tc.name); got != tc.want {
			t.Errorf("Names(%q) = %v; want %v", tc.name, got, tc.want)
		}
	}
}
