// Package sanctions reads OFAC's published sanctions lists (the SDN list and the Consolidated
// non-SDN list, in Treasury's legacy CSV files) and scores how closely a payee's name, date of
// birth and country match a listed party. It decides nothing about payouts: the service asks it
// for matches and holds what scores over its threshold.
package sanctions

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// The lists an entry can be on.
const (
	ListSDN          = "SDN"
	ListConsolidated = "CONS" // the Consolidated Sanctions List (non-SDN)
)

// Entry is one listed party: its primary name, aliases and programs, with the dates of birth
// and countries its remarks and addresses give.
type Entry struct {
	UID        string   `json:"uid"`  // the list and its ent_num: "SDN-36", "CONS-1234"
	List       string   `json:"list"` // ListSDN or ListConsolidated
	Name       string   `json:"name"`
	Type       string   `json:"type,omitempty"` // individual, vessel, aircraft; "" for an entity
	Programs   []string `json:"programs"`
	Aliases    []string `json:"aliases,omitempty"`
	BirthDates []string `json:"birth_dates,omitempty"` // YYYY, YYYY-MM or YYYY-MM-DD
	Countries  []string `json:"countries,omitempty"`
}

// List is a loaded set of entries; Version is the SHA-256 of the files it was read from.
type List struct {
	Version string
	Entries []Entry
}

// The legacy files, by lower-case name: which list they belong to and what they hold.
const (
	filePrimary = iota
	fileAddresses
	fileAliases
)

var legacyFiles = []struct {
	name, list string
	kind       int
}{
	{"sdn.csv", ListSDN, filePrimary},
	{"add.csv", ListSDN, fileAddresses},
	{"alt.csv", ListSDN, fileAliases},
	{"cons_prim.csv", ListConsolidated, filePrimary},
	{"cons_add.csv", ListConsolidated, fileAddresses},
	{"cons_alt.csv", ListConsolidated, fileAliases},
}

// Load reads the lists at path: a folder holding any of sdn.csv, add.csv, alt.csv,
// cons_prim.csv, cons_add.csv and cons_alt.csv (names in any case, as the Sanctions List
// Service serves them), or one of those primary files alone. A folder with no primary file, or
// a file of another name, is refused.
func Load(path string) (*List, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	found := map[string]string{} // lower-case name -> path
	if fi.IsDir() {
		des, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		for _, de := range des {
			if !de.IsDir() {
				found[strings.ToLower(de.Name())] = filepath.Join(path, de.Name())
			}
		}
	} else {
		found[strings.ToLower(filepath.Base(path))] = path
	}
	if found["sdn.csv"] == "" && found["cons_prim.csv"] == "" {
		return nil, fmt.Errorf("%s: no sdn.csv or cons_prim.csv (OFAC's legacy CSV files)", path)
	}
	files := map[string][]byte{}
	for _, f := range legacyFiles {
		if p := found[f.name]; p != "" {
			if files[f.name], err = os.ReadFile(p); err != nil {
				return nil, err
			}
		}
	}
	return Parse(files)
}

// Parse reads the legacy CSV files given by lower-case name (see Load). The version is the
// SHA-256 of the files' names and contents, so the same files give the same version.
func Parse(files map[string][]byte) (*List, error) {
	h := sha256.New()
	byUID := map[string]*Entry{}
	var order []string
	for _, kind := range []int{filePrimary, fileAddresses, fileAliases} {
		for _, f := range legacyFiles {
			data, ok := files[f.name]
			if !ok || f.kind != kind {
				continue
			}
			fmt.Fprintf(h, "%s\n%d\n", f.name, len(data))
			h.Write(data)
			records, err := readCSV(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			for i, r := range records {
				if err := addRecord(byUID, &order, f.list, f.kind, r); err != nil {
					return nil, fmt.Errorf("%s line %d: %w", f.name, i+1, err)
				}
			}
		}
	}
	l := &List{Version: hex.EncodeToString(h.Sum(nil))}
	for _, uid := range order {
		l.Entries = append(l.Entries, *byUID[uid])
	}
	return l, nil
}

// readCSV reads a legacy file: no header, quoted fields, a lone end-of-file character (0x1A) on
// its last line; text that is not UTF-8 is read as Latin-1.
func readCSV(data []byte) ([][]string, error) {
	if !utf8.Valid(data) {
		runes := make([]rune, len(data))
		for i, b := range data {
			runes[i] = rune(b)
		}
		data = []byte(string(runes))
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var out [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(rec) == 1 && strings.Trim(rec[0], "\x1a \r\n") == "" {
			continue
		}
		out = append(out, rec)
	}
}

// field is column i of r with OFAC's null ("-0-") as "".
func field(r []string, i int) string {
	if i >= len(r) {
		return ""
	}
	v := strings.TrimSpace(r[i])
	if v == "-0-" {
		return ""
	}
	return v
}

// addRecord adds one row of a legacy file, by the columns of OFAC's data specification:
// primary: ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign, Vess_type, Tonnage, GRT,
// Vess_flag, Vess_owner, Remarks; addresses: Ent_num, Add_num, Address,
// City/State/Province/Postal Code, Country, Add_remarks; aliases: ent_num, alt_num, alt_type,
// alt_name, alt_remarks.
func addRecord(byUID map[string]*Entry, order *[]string, list string, kind int, r []string) error {
	num := field(r, 0)
	if num == "" {
		return errors.New("no ent_num")
	}
	uid := list + "-" + num
	if kind == filePrimary {
		if len(r) < 12 {
			return fmt.Errorf("%d columns, want 12", len(r))
		}
		if _, dup := byUID[uid]; dup {
			return fmt.Errorf("ent_num %s twice", num)
		}
		e := &Entry{UID: uid, List: list, Name: field(r, 1), Type: field(r, 2), Programs: programs(field(r, 3))}
		remarks := field(r, 11)
		e.BirthDates = birthDates(remarks)
		e.Countries = remarkCountries(remarks)
		byUID[uid] = e
		*order = append(*order, uid)
		return nil
	}
	e := byUID[uid]
	if e == nil {
		return nil // a row of an entry the primary file does not list: nothing to screen
	}
	switch kind {
	case fileAddresses:
		if c := field(r, 4); c != "" {
			e.Countries = appendNew(e.Countries, c)
		}
	case fileAliases:
		if n := field(r, 3); n != "" {
			e.Aliases = appendNew(e.Aliases, n)
		}
	}
	return nil
}

// programs splits the Program column, where several are written "SDGT] [IRGC".
func programs(v string) []string {
	var out []string
	for _, p := range strings.Split(v, "] [") {
		if p = strings.Trim(p, "[] "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var (
	dobRemark     = regexp.MustCompile(`(?i)\bDOB\s+([^;]+)`)
	countryRemark = regexp.MustCompile(`(?i)\b(?:nationality|citizen)\s+([^;.]+)`)
	dobPart       = regexp.MustCompile(`(?i)(?:(\d{1,2})\s+)?(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\s+(\d{4})|(\d{4})`)
	months        = map[string]string{"jan": "01", "feb": "02", "mar": "03", "apr": "04", "may": "05", "jun": "06",
		"jul": "07", "aug": "08", "sep": "09", "oct": "10", "nov": "11", "dec": "12"}
)

// birthDates reads the dates of birth of the remarks ("DOB 12 Mar 1970; alt. DOB 1971;",
// "DOB circa 1965", "DOB 1960 to 1962") as YYYY, YYYY-MM or YYYY-MM-DD.
func birthDates(remarks string) []string {
	var out []string
	for _, m := range dobRemark.FindAllStringSubmatch(remarks, -1) {
		v := m[1]
		if from, to, ok := yearRange(v); ok {
			for y := from; y <= to; y++ {
				out = appendNew(out, fmt.Sprintf("%04d", y))
			}
			continue
		}
		for _, d := range dobPart.FindAllStringSubmatch(v, -1) {
			switch {
			case d[4] != "":
				out = appendNew(out, d[4])
			case d[1] != "":
				out = appendNew(out, fmt.Sprintf("%s-%s-%02s", d[3], months[strings.ToLower(d[2])], d[1]))
			default:
				out = appendNew(out, d[3]+"-"+months[strings.ToLower(d[2])])
			}
		}
	}
	return out
}

var yearSpan = regexp.MustCompile(`^\s*(\d{4})\s+to\s+(\d{4})\s*$`)

// yearRange reads "1960 to 1962", at most a decade apart.
func yearRange(v string) (from, to int, ok bool) {
	m := yearSpan.FindStringSubmatch(v)
	if m == nil {
		return 0, 0, false
	}
	fmt.Sscan(m[1], &from)
	fmt.Sscan(m[2], &to)
	return from, to, from <= to && to-from <= 10
}

// remarkCountries reads "nationality Iran" and "citizen Syria" from the remarks.
func remarkCountries(remarks string) []string {
	var out []string
	for _, m := range countryRemark.FindAllStringSubmatch(remarks, -1) {
		out = appendNew(out, strings.TrimSpace(m[1]))
	}
	return out
}

func appendNew(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// Names are the entry's primary name and aliases.
func (e *Entry) Names() []string { return append([]string{e.Name}, e.Aliases...) }

// sortedTokens is a helper of the index: the name's tokens, in order.
func sortedTokens(name string) []string {
	t := strings.Fields(Normalize(name))
	sort.Strings(t)
	return t
}
