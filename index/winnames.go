package index

import "strings"

// windowsDevices are the device names Windows reserves in every directory,
// lower-cased: a file of that name, with or without an extension, opens
// the device instead. The list is the union of what Win32 path
// normalisation and golang.org/x/mod/zip refuse, the superscript-digit
// ports (COM¹, LPT³) included.
var windowsDevices = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"conin$": true, "conout$": true, "clock$": true,
	"com0": true, "com1": true, "com2": true, "com3": true, "com4": true,
	"com5": true, "com6": true, "com7": true, "com8": true, "com9": true,
	"com¹": true, "com²": true, "com³": true,
	"lpt0": true, "lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true,
	"lpt5": true, "lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
	"lpt¹": true, "lpt²": true, "lpt³": true,
}

// WindowsReserved reports whether Windows treats the path element elem as
// a reserved device name: its part before the first dot, with trailing
// spaces removed, is in any case one of CON, PRN, AUX, NUL, CONIN$,
// CONOUT$, CLOCK$, COM0-COM9, COM¹-COM³, LPT0-LPT9 or LPT¹-LPT³. So "con",
// "Con.txt", "con .txt" and "LPT¹.tar.gz" are reserved; "console",
// "xcon" and "com10" are not. elem is one element; it holds no slash.
func WindowsReserved(elem string) bool {
	base, _, _ := strings.Cut(elem, ".")
	base = strings.TrimRight(base, " ")
	return windowsDevices[strings.ToLower(base)]
}
