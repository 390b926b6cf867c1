package index

import "testing"

func TestWindowsReserved(t *testing.T) {
	tests := []struct {
		elem string
		want bool
	}{
		{"con", true},
		{"CON", true},
		{"Con.txt", true},
		{"con.tar.gz", true},
		{"con .txt", true},
		{"con  ", true},
		{"prn", true},
		{"aux.js", true},
		{"nul", true},
		{"conin$", true},
		{"CONOUT$.log", true},
		{"clock$", true},
		{"com0", true},
		{"COM9.txt", true},
		{"com¹", true},
		{"COM².x", true},
		{"lpt³", true},
		{"lpt5", true},

		{"", false},
		{"console", false},
		{"xcon", false},
		{"con_x", false},
		{"com", false},
		{"com10", false},
		{"lpt⁴", false},
		{".con", false},
		{" con", false},
		{"clock", false},
		{"conin", false},
	}
	for _, tt := range tests {
		if got := WindowsReserved(tt.elem); got != tt.want {
			t.Errorf("WindowsReserved(%q) = %v; want %v", tt.elem, got, tt.want)
		}
	}
}
