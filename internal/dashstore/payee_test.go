package dashstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

func payee(n int, first, last, email, phone string) payouts.User {
	return payouts.User{ID: fmt.Sprintf("0190a0a0-0000-7000-8000-%012d", n), FirstName: first, LastName: last, Email: email,
		PhoneNumber: payouts.Phone{CountryCode: "1", PhoneNumber: phone}}
}

func ids(users []payouts.User) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = u.ID
	}
	return out
}

// TestPayeeIndex fills the index as the handlers do (the top of the list, then older pages, then
// newer users above) and searches it: the list's order, every term, phone digits in any format,
// wildcards taken literally, and how far the list was read.
func TestPayeeIndex(t *testing.T) {
	forEachEngine(t, func(t *testing.T, s *dashstore.Store) {
		ctx := context.Background()
		state := func() dashstore.PayeeIndex {
			t.Helper()
			st, err := s.PayeeIndexState(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		if st := state(); st.Complete || st.Listed || st.Payees != 0 || !st.Synced.IsZero() {
			t.Fatalf("empty index = %+v", st)
		}
		maria3, maria2, ana, maria1 := payee(4, "Maria", "Garcia", "maria.g@example.com", "5550000004"),
			payee(3, "Maria", "Garcia", "mgarcia@example.com", "5550000003"), payee(2, "Ana", "Percent", "ana_100%@example.com", "5550000002"),
			payee(1, "Maria", "Garcia", "maria.g.old@example.com", "5550000001")
		if err := s.AddNewestPayees(ctx, []payouts.User{maria3, maria2}, false, t0); err != nil {
			t.Fatal(err)
		}
		if st := state(); st.Complete || !st.Listed || st.ResumeAfter != maria2.ID || !st.Synced.Equal(t0) || st.Payees != 2 {
			t.Fatalf("after the first page: %+v", st)
		}
		if err := s.AddOlderPayees(ctx, []payouts.User{ana, maria1}, true, t0); err != nil {
			t.Fatal(err)
		}
		if st := state(); !st.Complete || st.ResumeAfter != maria1.ID || st.Payees != 4 {
			t.Fatalf("after the last page: %+v", st)
		}
		newest := payee(5, "Zed", "New", "zed@example.com", "5550000005")
		touched := payee(6, "Tom", "Touched", "tom@example.com", "5550000006")
		if err := s.PutPayee(ctx, touched, t0); err != nil {
			t.Fatal(err)
		}
		if err := s.AddNewestPayees(ctx, []payouts.User{touched, newest}, false, t0.Add(1)); err != nil {
			t.Fatal(err)
		}
		if st := state(); !st.Complete || st.ResumeAfter != maria1.ID || st.Payees != 6 {
			t.Fatalf("after newer users: %+v", st)
		}
		for _, tc := range []struct {
			name, q string
			want    []payouts.User
		}{
			{"everyone, newest first", "", []payouts.User{touched, newest, maria3, maria2, ana, maria1}},
			{"a name in any order", "garcia maria", []payouts.User{maria3, maria2, maria1}},
			{"part of an email", "maria.g", []payouts.User{maria3, maria1}},
			{"a phone in another format", "(555) 000-0001", []payouts.User{maria1}},
			{"wildcards are letters", "100%", []payouts.User{ana}},
			{"an underscore is a letter", "a_1", []payouts.User{ana}},
			{"nobody", "nobody", nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				m, err := s.SearchPayees(ctx, payouts.SearchTerms(tc.q), 2)
				if err != nil {
					t.Fatal(err)
				}
				want := ids(tc.want)
				if m.Total != len(want) || !slices.Equal(ids(m.Users), want[:min(2, len(want))]) {
					t.Errorf("SearchPayees(%q) = %v of %d, want %v", tc.q, ids(m.Users), m.Total, want)
				}
			})
		}
		listed, err := s.ListedPayees(ctx, []string{maria1.ID, touched.ID, "0190a0a0-0000-7000-8000-999999999999"})
		if err != nil || !listed[maria1.ID] || !listed[touched.ID] || len(listed) != 2 {
			t.Errorf("ListedPayees = %v, %v", listed, err)
		}
		byEmail, err := s.PayeesByEmail(ctx, " MGarcia@Example.com")
		if err != nil || !slices.Equal(ids(byEmail), []string{maria2.ID}) {
			t.Errorf("PayeesByEmail = %v, %v", ids(byEmail), err)
		}
		renamed := maria2
		renamed.LastName = "Lopez"
		if err := s.PutPayee(ctx, renamed, t0); err != nil {
			t.Fatal(err)
		}
		if err := s.DeletePayee(ctx, ana.ID); err != nil {
			t.Fatal(err)
		}
		got, err := s.PayeesByID(ctx, []string{maria2.ID, ana.ID})
		if err != nil || len(got) != 1 || got[maria2.ID].LastName != "Lopez" {
			t.Errorf("PayeesByID = %+v, %v", got, err)
		}
		if m, _ := s.SearchPayees(ctx, payouts.SearchTerms("maria"), 10); !slices.Equal(ids(m.Users), []string{maria3.ID, maria2.ID, maria1.ID}) {
			t.Errorf("a re-read user moved in the list: %v", ids(m.Users))
		}
	})
}
