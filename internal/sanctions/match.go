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

// Index is a list ready to screen against: every name of every entry, tokenised once, its
// tokens kept once each, so that a screening scores each distinct token of the list once.
type Index struct {
	tokens [][]rune // the distinct tokens of all names
	names  []indexedName
}

type indexedName struct {
	entry  *Entry
	name   string
	tokens []int32 // into Index.tokens
	joined []rune  // the sorted tokens without spaces
	weight int     // the tokens' total length
}

// NewIndex indexes the list's entries.
func NewIndex(l *List) *Index {
	ix := &Index{}
	ids := map[string]int32{}
	for i := range l.Entries {
		e := &l.Entries[i]
		for _, n := range e.Names() {
			tokens := sortedTokens(n)
			if len(tokens) == 0 {
				continue
			}
			in := indexedName{entry: e, name: n, joined: []rune(strings.Join(tokens, ""))}
			for _, t := range tokens {
				id, ok := ids[t]
				if !ok {
					id = int32(len(ix.tokens))
					ids[t] = id
					ix.tokens = append(ix.tokens, []rune(t))
				}
				in.tokens = append(in.tokens, id)
				in.weight += len([]rune(t))
			}
			ix.names = append(ix.names, in)
		}
	}
	return ix
}

// Screen returns the entries whose best score for s reaches threshold, best first; one match
// per entry.
//
// A name's score is the names compared whatever their order: each token, of either name, is
// scored against the closest token of the other (Jaro-Winkler) and weighted by its length, so a
// token either side lacks lowers the score. Names whose tokens differ in number are compared
// joined too, for names spaced differently ("AlRashid", "Al Rashid"). A date of birth or
// country that agrees with the entry's raises the score (boost).
func (ix *Index) Screen(s Subject, threshold float64) []Match {
	subject := sortedTokens(s.Name)
	if len(subject) == 0 {
		return nil
	}
	// sims[i][u] is the similarity of the subject's token i and the list's token u.
	sims := make([][]float64, len(subject))
	subjectWeight := 0
	var joined []rune
	for i, t := range subject {
		r := []rune(t)
		subjectWeight += len(r)
		joined = append(joined, r...)
		sims[i] = make([]float64, len(ix.tokens))
		for u, lt := range ix.tokens {
			sims[i][u] = jaroWinkler(r, lt)
		}
	}
	best := map[*Entry]Match{}
	for k := range ix.names {
		n := &ix.names[k]
		var sum float64
		for i, t := range subject {
			var b float64
			for _, u := range n.tokens {
				b = max(b, sims[i][u])
			}
			sum += b * float64(len([]rune(t)))
		}
		for _, u := range n.tokens {
			var b float64
			for i := range subject {
				b = max(b, sims[i][u])
			}
			sum += b * float64(len(ix.tokens[u]))
		}
		score := sum / float64(subjectWeight+n.weight)
		if len(n.tokens) != len(subject) && score < threshold {
			score = max(score, jaroWinkler(joined, n.joined))
		}
		if score+birthDateBoost+countryBoost < threshold {
			continue // no boost could bring it over
		}
		score = min(1, score+boost(n.entry, s))
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

// JaroWinkler is the Jaro-Winkler similarity of a and b, from 0 (nothing alike) to 1 (equal),
// with the standard prefix scale 0.1 over at most four characters.
func JaroWinkler(a, b string) float64 { return jaroWinkler([]rune(a), []rune(b)) }

func jaroWinkler(a, b []rune) float64 {
	j := jaro(a, b)
	prefix := 0
	for prefix < len(a) && prefix < len(b) && prefix < 4 && a[prefix] == b[prefix] {
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
	window := max(0, max(len(a), len(b))/2-1)
	// The flags of which runes matched; on the stack for names of usual length.
	var bufA, bufB [64]bool
	var ma, mb []bool
	if len(a) <= len(bufA) && len(b) <= len(bufB) {
		ma, mb = bufA[:len(a)], bufB[:len(b)]
	} else {
		ma, mb = make([]bool, len(a)), make([]bool, len(b))
	}
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
