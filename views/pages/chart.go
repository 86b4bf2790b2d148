package pages

import (
	"time"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
)

// volumeChart is the geometry of the overview's bar chart of daily payout volume, worked out
// here so the template only draws it. Heights are proportions of integer cents, computed in
// integers: no floats near money, even for pixels.
type volumeChart struct {
	Width, Height int // the SVG's viewBox
	Left, Base    int // x of the plot's left edge; y of its baseline
	Top           int // y of the plot's top, where the largest bar ends
	Bars          []chartBar
	Ticks         []chartTick // dates under the bars
	Max           payouts.Money
	Total         payouts.Money
	Count         int // payouts in the window
	Peak          payouts.DailyVolume
}

type chartBar struct {
	X, Y, W, H int
	Day        payouts.DailyVolume
	Label      string // the date in words
}

type chartTick struct {
	X    int
	Text string
}

const (
	chartWidth  = 1000
	chartHeight = 240
	chartLeft   = 80 // room for the largest amount
	chartTop    = 12
	chartBottom = 28 // room for the dates
)

func newVolumeChart(days []payouts.DailyVolume) volumeChart {
	c := volumeChart{Width: chartWidth, Height: chartHeight, Left: chartLeft, Top: chartTop, Base: chartHeight - chartBottom}
	for _, d := range days {
		c.Total += d.Payouts
		c.Count += d.PayoutCount
		if d.Payouts > c.Max {
			c.Max, c.Peak = d.Payouts, d
		}
	}
	if len(days) == 0 {
		return c
	}
	slot := (chartWidth - chartLeft) / len(days)
	gap := max(slot/5, 1)
	plot := int64(c.Base - c.Top)
	for i, d := range days {
		h := 0
		if c.Max > 0 && d.Payouts > 0 {
			h = max(int(int64(d.Payouts)*plot/int64(c.Max)), 1) // a day with any volume shows
		}
		x := chartLeft + i*slot
		c.Bars = append(c.Bars, chartBar{X: x + gap/2, Y: c.Base - h, W: slot - gap, H: h, Day: d, Label: dayLabel(d.Date)})
		if i == 0 || i == len(days)-1 || i == len(days)/2 {
			c.Ticks = append(c.Ticks, chartTick{X: x + slot/2, Text: dayLabel(d.Date)})
		}
	}
	return c
}

// dayLabel writes a YYYY-MM-DD date as "Mar 2".
func dayLabel(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.Format("Jan 2")
}

// chartSummary says in words what the chart shows.
func chartSummary(c volumeChart) string {
	if c.Count == 0 {
		return "No payouts in this window."
	}
	return c.Total.String() + " paid out in " + countOf(c.Count, "payout") + "; the busiest day was " +
		dayLabel(c.Peak.Date) + " with " + c.Peak.Payouts.String() + "."
}

// countOf is "1 payout", "3 payouts".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return components.Count(n) + " " + noun + "s"
}
