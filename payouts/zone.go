package payouts

import "time"

// LoadZone is the time zone an operator's zone name names: an IANA name this machine knows
// (America/New_York), "" being UTC. "Local", the machine's own zone, is refused: the service and
// the dashboard may run on machines in different zones. The service's stats and the dashboard's
// settings both decide by it.
func LoadZone(name string) (*time.Location, bool) {
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, false
	}
	return loc, true
}
