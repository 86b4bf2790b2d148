package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestParseMix(t *testing.T) {
	tests := []struct {
		in      string
		want    string // String() of the parsed mix; "" for an error
		weights map[string]int
	}{
		{"transfer=100", "transfer=100", map[string]int{"transfer": 100}},
		{"transfer=70, payout=10,link=5,read=10,list=5", "transfer=70,payout=10,link=5,read=10,list=5", nil},
		{"read=0,list=3", "list=3", nil},
		{"transfers=1", "", nil},
		{"transfer", "", nil},
		{"transfer=-1", "", nil},
		{"transfer=x", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m, err := parseMix(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("parseMix(%q) = %v, want an error", tt.in, m)
				}
				return
			}
			if err != nil || m.String() != tt.want {
				t.Fatalf("parseMix(%q) = %v, %v; want %s", tt.in, m, err, tt.want)
			}
			for k, w := range tt.weights {
				if m[k] != w {
					t.Errorf("weight of %s = %d, want %d", k, m[k], w)
				}
			}
		})
	}
}

// TestPickFollowsWeights: a kind of weight 0 is never drawn, and the others in proportion.
func TestPickFollowsWeights(t *testing.T) {
	m := mix{"transfer": 3, "read": 1, "list": 0}
	r := rand.New(rand.NewPCG(1, 2))
	got := map[string]int{}
	for range 4000 {
		got[m.pick(r)]++
	}
	if got["list"] != 0 || got["payout"] != 0 || got["link"] != 0 {
		t.Errorf("drew kinds of weight 0: %v", got)
	}
	if got["transfer"] < 2700 || got["transfer"] > 3300 {
		t.Errorf("drew transfer %d times of 4000, want about 3000", got["transfer"])
	}
}

func TestPercentiles(t *testing.T) {
	var l []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		l = append(l, time.Duration(i)*time.Millisecond)
	}
	p50, p99, mx := percentiles(l)
	if p50 != 51 || p99 != 100 || mx != 100 {
		t.Errorf("percentiles of 1..100 ms = %v, %v, %v; want 51, 100, 100", p50, p99, mx)
	}
	if l[0] != 100*time.Millisecond {
		t.Error("percentiles sorted its argument in place")
	}
}
