package sanctions

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Subject is who is screened: a payee's name, and their date of birth (YYYY-MM-DD) and country
// when known.
type Subject struct {
	Name      string
	BirthDate string
	Country   string
}

// Match is an entry a subject resembles: the entry, the name of it (primary or alias) that
// scored best, and the score from 0 to 1.
type Match struct {
	Entry *Entry
	Name  string
	Score float64
}

// How much a matching date of birth or country raises a name's score.
const (
	birthDateBoost = 0.05
	countryBoost   = 0.03
)

// Normalize folds a name for comparison: accents removed, lower case, punctuation as spaces,
// runs of spaces as one.
func Normalize(s string) string {
	var b strings.Builder
	space := true
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
			space = false
		case !space:
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// Index is a list ready to screen against: every name of every entry, tokenised once.
type Index struct {
	names []indexedName
}

type indexedName struct {
	entry  *Entry
	name   string
	tokens []string
}

// NewIndex indexes the list's entries.
func NewIndex(l *List) *Index {
	ix := &Index{}
	for i := range l.Entries {
		e := &l.Entries[i]
		for _, n := range e.Names() {
			if t := sortedTokens(n); len(t) > 0 {
				ix.names = append(ix.names, indexedName{entry: e, name: n, tokens: t})
			}
		}
	}
	return ix
}

// Screen returns the entries whose best score for s reaches threshold, best first; one match
// per entry.
func (ix *Index) Screen(s Subject, threshold float64) []Match {
	tokens := sortedTokens(s.Name)
	if len(tokens) == 0 {
		return nil
	}
	best := map[*Entry]Match{}
	for _, n := range ix.names {
		score := NameScore(tokens, n.tokens)
		if score+birthDateBoost+countryBoost < threshold {
			continue // no boost could bring it over
		}
		score += boost(n.entry, s)
		if score > 1 {
			score = 1
		}
		if score >= threshold && score > best[n.entry].Score {
			best[n.entry] = Match{Entry: n.entry, Name: n.name, Score: score}
		}
	}
	out := make([]Match, 0, len(best))
	for _, m := range best {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Entry.UID < out[j].Entry.UID
	})
	return out
}

// boost is what s's date of birth and country add when the entry has one that agrees.
func boost(e *Entry, s Subject) float64 {
	var b float64
	if s.BirthDate != "" {
		for _, d := range e.BirthDates {
			if strings.HasPrefix(s.BirthDate, d) {
				b += birthDateBoost
				break
			}
		}
	}
	if c := Normalize(s.Country); c != "" {
		for _, ec := range e.Countries {
			if Normalize(ec) == c {
				b += countryBoost
				break
			}
		}
	}
	return b
}

// NameScore compares two names given as sorted tokens, whatever their order: each token is
// scored against the closest token of the other name (Jaro-Winkler), weighted by its length,
// over both names, so a token either side lacks lowers the score. The joined tokens are
// compared too, for names spaced differently ("AlRashid", "Al Rashid").
func NameScore(a, b []string) float64 {
	var sum, weight float64
	for _, side := range [2][2][]string{{a, b}, {b, a}} {
		for _, t := range side[0] {
			var best float64
			for _, u := range side[1] {
				if s := JaroWinkler(t, u); s > best {
					best = s
				}
			}
			sum += best * float64(len(t))
			weight += float64(len(t))
		}
	}
	score := sum / weight
	if joined := JaroWinkler(strings.Join(a, ""), strings.Join(b, "")); joined > score {
		score = joined
	}
	return score
}

// JaroWinkler is the Jaro-Winkler similarity of a and b, from 0 (nothing alike) to 1 (equal),
// with the standard prefix scale 0.1 over at most four characters.
func JaroWinkler(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	j := jaro(ra, rb)
	prefix := 0
	for prefix < len(ra) && prefix < len(rb) && prefix < 4 && ra[prefix] == rb[prefix] {
		prefix++
	}
	return j + float64(prefix)*0.1*(1-j)
}

func jaro(a, b []rune) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	window := max(len(a), len(b))/2 - 1
	window = max(window, 0)
	ma, mb := make([]bool, len(a)), make([]bool, len(b))
	matches := 0
	for i := range a {
		lo, hi := max(0, i-window), min(len(b), i+window+1)
		for k := lo; k < hi; k++ {
			if !mb[k] && a[i] == b[k] {
				ma[i], mb[k] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	transposed, k := 0, 0
	for i := range a {
		if !ma[i] {
			continue
		}
		for !mb[k] {
			k++
		}
		if a[i] != b[k] {
			transposed++
		}
		k++
	}
	m := float64(matches)
	return (m/float64(len(a)) + m/float64(len(b)) + (m-float64(transposed/2))/m) / 3
}

// DefaultThreshold is the score at or over which a payee is held when the operator sets none.
const DefaultThreshold = 0.9
