package sanctions_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/disburse/disburse/internal/sanctions"
)

// The files below are written in OFAC's legacy layouts (no header, "-0- " for null, several
// programs as "A] [B", the end-of-file character on the last line); the parties are made up.
const (
	sdnCSV = `36,"AEROCARIBBEAN AIRLINES",-0- ,"CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- 
7001,"AL-RASHID, Ahmad Yusuf","individual","SDGT] [IRGC",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 12 Mar 1970; alt. DOB 1971; POB Aleppo, Syria; nationality Syria; Passport N0000001 (Syria)."
7002,"OKONKWO-BELLAMY, Theodora","individual","SDNTK",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB circa 1980; citizen Nigeria."
7003,"SMITH, John Bartholomew","individual","CYBER2",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 01 Jan 1961."
7004,"MULLER, Jurgen","individual","RUSSIA-EO14024",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 1960 to 1962; nationality Germany."
` + "\x1a"
	addCSV = `36,25,-0- ,"Havana","Cuba",-0- 
7001,26,"Street 1","Aleppo","Syria",-0- 
`
	altCSV = `7001,101,"aka","ABU YUSUF AL-HALABI",-0- 
36,102,"aka","AEROCARIBBEAN",-0- 
`
	consPrimCSV = `9001,"NORTHWIND TRADING LLC",-0- ,"SSI",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- 
`
	consAltCSV = `9001,201,"fka","BOREAL EXPORTS LLC",-0- 
`
)

// writeLists writes the files into a new folder, with the upper-case names the Sanctions List
// Service serves, and returns it.
func writeLists(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func loadTestLists(t *testing.T) *sanctions.List {
	t.Helper()
	l, err := sanctions.Load(writeLists(t, map[string]string{"SDN.CSV": sdnCSV, "ADD.CSV": addCSV, "ALT.CSV": altCSV,
		"CONS_PRIM.CSV": consPrimCSV, "CONS_ALT.CSV": consAltCSV}))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoadReadsTheLegacyColumns(t *testing.T) {
	l := loadTestLists(t)
	if len(l.Entries) != 6 || len(l.Version) != 64 {
		t.Fatalf("%d entries, version %q", len(l.Entries), l.Version)
	}
	byUID := map[string]sanctions.Entry{}
	for _, e := range l.Entries {
		byUID[e.UID] = e
	}
	e := byUID["SDN-7001"]
	want := sanctions.Entry{UID: "SDN-7001", List: sanctions.ListSDN, Name: "AL-RASHID, Ahmad Yusuf", Type: "individual",
		Programs: []string{"SDGT", "IRGC"}, Aliases: []string{"ABU YUSUF AL-HALABI"},
		BirthDates: []string{"1970-03-12", "1971"}, Countries: []string{"Syria"}}
	if !slices.Equal(e.Programs, want.Programs) || !slices.Equal(e.Aliases, want.Aliases) ||
		!slices.Equal(e.BirthDates, want.BirthDates) || !slices.Equal(e.Countries, want.Countries) ||
		e.Name != want.Name || e.Type != want.Type || e.List != want.List {
		t.Errorf("SDN-7001 = %+v, want %+v", e, want)
	}
	if got := byUID["SDN-7004"].BirthDates; !slices.Equal(got, []string{"1960", "1961", "1962"}) {
		t.Errorf("a range of years = %v", got)
	}
	if got := byUID["SDN-36"]; got.Type != "" || !slices.Equal(got.Countries, []string{"Cuba"}) {
		t.Errorf("an entity: %+v", got)
	}
	if got := byUID["CONS-9001"]; got.List != sanctions.ListConsolidated || !slices.Equal(got.Aliases, []string{"BOREAL EXPORTS LLC"}) {
		t.Errorf("a consolidated entry: %+v", got)
	}
	again := loadTestLists(t)
	if again.Version != l.Version {
		t.Error("the same files gave another version")
	}
	changed, err := sanctions.Load(writeLists(t, map[string]string{"sdn.csv": sdnCSV + "\n"}))
	if err != nil || changed.Version == l.Version {
		t.Errorf("other files gave the same version (%v)", err)
	}
}

func TestLoadRefuses(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no primary file":     {"alt.csv": altCSV},
		"short primary row":   {"sdn.csv": `1,"X","individual"` + "\n"},
		"ent_num twice":       {"sdn.csv": sdnCSV + sdnCSV},
		"unbalanced quote":    {"sdn.csv": "1,\"X\"Y\"\"\n"},
		"primary without num": {"sdn.csv": `-0- ,"X",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ` + "\n"},
	} {
		t.Run(name, func(t *testing.T) {
			if l, err := sanctions.Load(writeLists(t, files)); err == nil {
				t.Errorf("loaded %d entries", len(l.Entries))
			}
		})
	}
}

func TestScreen(t *testing.T) {
	ix := sanctions.NewIndex(loadTestLists(t))
	for _, tc := range []struct {
		name    string
		subject sanctions.Subject
		want    string // the best match's UID; "" for none over the threshold
	}{
		{"exact", sanctions.Subject{Name: "AL-RASHID, Ahmad Yusuf"}, "SDN-7001"},
		{"exact entity", sanctions.Subject{Name: "Aerocaribbean Airlines"}, "SDN-36"},
		{"alias", sanctions.Subject{Name: "Abu Yusuf al Halabi"}, "SDN-7001"},
		{"consolidated alias", sanctions.Subject{Name: "Boreal Exports, L.L.C."}, "CONS-9001"},
		{"reordered", sanctions.Subject{Name: "Theodora Okonkwo-Bellamy"}, "SDN-7002"},
		{"accented", sanctions.Subject{Name: "Jürgen Müller"}, "SDN-7004"},
		{"misspelled", sanctions.Subject{Name: "Ahmed Yousuf Al Rashid"}, "SDN-7001"},
		{"misspelled and reordered", sanctions.Subject{Name: "Teodora Okonkwo Belamy"}, "SDN-7002"},
		{"common name under the threshold", sanctions.Subject{Name: "John Smith"}, ""},
		{"common name, other birth date", sanctions.Subject{Name: "John Smith", BirthDate: "1990-05-05"}, ""},
		{"part of the name alone", sanctions.Subject{Name: "Ahmed Yusuf"}, ""},
		{"part of the name, same birth date", sanctions.Subject{Name: "Ahmed Yusuf", BirthDate: "1970-03-12"}, "SDN-7001"},
		{"part of the name, same country", sanctions.Subject{Name: "Ahmed Yusuf", Country: "syria"}, "SDN-7001"},
		{"part of the name, other birth date", sanctions.Subject{Name: "Ahmed Yusuf", BirthDate: "1975-03-12"}, ""},
		{"unrelated", sanctions.Subject{Name: "Maria Fernanda Lopez"}, ""},
		{"empty name", sanctions.Subject{Name: " - "}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ix.Screen(tc.subject, sanctions.DefaultThreshold)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("held by %s (%q, %.3f)", got[0].Entry.UID, got[0].Name, got[0].Score)
			case tc.want != "" && (len(got) == 0 || got[0].Entry.UID != tc.want):
				t.Errorf("got %v, want %s", got, tc.want)
			}
		})
	}
}

// A name just under the threshold is raised over it by a date of birth or country that agrees
// with the entry's, and not by ones that disagree.
func TestScreenBirthDateAndCountryRaiseTheScore(t *testing.T) {
	ix := sanctions.NewIndex(loadTestLists(t))
	name := "Jon Bartholomew Smyth"
	base := ix.Screen(sanctions.Subject{Name: name}, 0)
	if len(base) == 0 || base[0].Entry.UID != "SDN-7003" {
		t.Fatalf("no match at all: %v", base)
	}
	plain := base[0].Score
	for _, tc := range []struct {
		name    string
		subject sanctions.Subject
		raise   float64
	}{
		{"same birth date", sanctions.Subject{Name: name, BirthDate: "1961-01-01"}, 0.05},
		{"other birth date", sanctions.Subject{Name: name, BirthDate: "1962-01-01"}, 0},
		{"same country", sanctions.Subject{Name: "Jurgen Muler", Country: "GERMANY"}, 0.03},
		{"year of a range", sanctions.Subject{Name: "Jurgen Muler", BirthDate: "1961-07-30"}, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			without := ix.Screen(sanctions.Subject{Name: tc.subject.Name}, 0)[0].Score
			if tc.subject.Name == name && without != plain {
				t.Fatalf("score moved: %v, %v", without, plain)
			}
			got := ix.Screen(tc.subject, 0)[0].Score
			if math.Abs(got-math.Min(1, without+tc.raise)) > 1e-9 {
				t.Errorf("score %.4f, want %.4f raised by %.2f", got, without, tc.raise)
			}
		})
	}
}

func TestJaroWinkler(t *testing.T) {
	// The textbook pairs of Winkler's paper.
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"martha", "marhta", 0.961}, {"dwayne", "duane", 0.840}, {"dixon", "dicksonx", 0.813},
		{"same", "same", 1}, {"abc", "xyz", 0}, {"", "", 1}, {"a", "", 0},
	} {
		t.Run(tc.a+"/"+tc.b, func(t *testing.T) {
			if got := sanctions.JaroWinkler(tc.a, tc.b); math.Abs(got-tc.want) > 0.001 {
				t.Errorf("%.4f, want %.3f", got, tc.want)
			}
		})
	}
}
