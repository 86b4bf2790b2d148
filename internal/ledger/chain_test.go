package ledger

import (
	"strings"
	"testing"
	"time"
)

// TestCheckChain holds CheckChain to a chain of three postings, one of them a reservation
// settled later, and to each way of breaking it that only the chain shows.
func TestCheckChain(t *testing.T) {
	key := ChainKey([]byte("service key"))
	at := time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC)
	build := func() (ChainHead, []ChainEntry, []Posting) {
		postings := []Posting{
			{ID: 1, AppID: "a", TransferID: "t1", Debit: 1, Credit: 2, Amount: 500, State: Posted, Type: "refill", Created: at, Posted: at},
			{ID: 2, AppID: "a", TransferID: "t2", Debit: 2, Credit: 3, Amount: 200, State: Pending, Type: "payout", Created: at},
			{ID: 3, AppID: "a", TransferID: "t3", Debit: 2, Credit: 4, Amount: 100, State: Posted, Type: "balance", Created: at, Posted: at},
		}
		c := NewChainer(key, ChainHead{})
		var entries []ChainEntry
		for _, p := range postings {
			entries = append(entries, c.Add(p, false))
		}
		postings[1].State, postings[1].Posted = Voided, time.Time{}
		entries = append(entries, c.Add(postings[1], true))
		return c.Head(), entries, postings
	}
	cases := []struct {
		name   string
		tamper func(h *ChainHead, e *[]ChainEntry, p *[]Posting)
		want   string
	}{
		{"untouched", func(*ChainHead, *[]ChainEntry, *[]Posting) {}, ""},
		{"an entry removed from the middle", func(_ *ChainHead, e *[]ChainEntry, _ *[]Posting) {
			*e = append((*e)[:1], (*e)[2:]...)
		}, "entry 2 is missing"},
		{"the head moved on", func(h *ChainHead, _ *[]ChainEntry, _ *[]Posting) { h.Seq++ }, "the head says entry 5"},
		{"a settlement entered twice", func(h *ChainHead, e *[]ChainEntry, p *[]Posting) {
			c := NewChainer(key, *h)
			*e = append(*e, c.Add((*p)[1], true))
			*h = c.Head()
		}, "posting 2 settled twice"},
		{"a voided reservation made pending again", func(_ *ChainHead, _ *[]ChainEntry, p *[]Posting) {
			(*p)[1].State = Pending
		}, "pending, but its settlement is in the chain"},
		{"a posting's type changed", func(_ *ChainHead, _ *[]ChainEntry, p *[]Posting) { (*p)[2].Type = "payment" }, "posting 3 is not as it was made"},
		{"an entry hashed under another key", func(_ *ChainHead, e *[]ChainEntry, p *[]Posting) {
			(*e)[0].Hash = ChainHash(ChainKey([]byte("another key")), nil, 1, (*p)[0], false)
		}, "posting 1 is not as it was made"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			head, entries, postings := build()
			tc.tamper(&head, &entries, &postings)
			var got []string
			for _, err := range CheckChain(key, head, entries, postings) {
				got = append(got, err.Error())
			}
			switch all := strings.Join(got, "\n"); {
			case tc.want == "" && len(got) > 0:
				t.Fatalf("CheckChain found\n%s", all)
			case tc.want != "" && !strings.Contains(all, tc.want):
				t.Fatalf("CheckChain found\n%s\nwant %q", all, tc.want)
			}
		})
	}
}
