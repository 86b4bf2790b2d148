package main

import (
	"strings"
	"testing"
)

func TestParseProcIO(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    ioCounters
		wantErr bool
	}{
		{
			name: "linux",
			in: "rchar: 6976\nwchar: 174080\nsyscr: 10\nsyscw: 78\nread_bytes: 0\n" +
				"write_bytes: 4096\ncancelled_write_bytes: 0\n",
			want: ioCounters{bytes: 174080, calls: 78},
		},
		{name: "order and spacing", in: "syscw:3\nwchar:   12\n", want: ioCounters{bytes: 12, calls: 3}},
		{name: "write_bytes is not wchar", in: "write_bytes: 9\nsyscw: 1\n", wantErr: true},
		{name: "no syscw", in: "wchar: 12\n", wantErr: true},
		{name: "not a number", in: "wchar: x\nsyscw: 1\n", wantErr: true},
		{name: "empty", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcIO(strings.NewReader(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseProcIO = %+v, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseProcIO = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
