package payouts

// Screening is a payee's sanctions screening against the list loaded last, our extension
// (GET /v2/users/{id}/screening): the entries the payee's name matched over the threshold, and
// the operator's release of each. Hits is empty when no list is loaded or nothing matched.
type Screening struct {
	// ListVersion is the SHA-256 of the loaded list's files; "" when none is loaded.
	ListVersion string         `json:"list_version"`
	ListLoaded  *Time          `json:"list_loaded,omitempty"`
	Hits        []ScreeningHit `json:"hits"`
}

// The lists a ScreeningHit's entry is on (internal/sanctions spells them the same).
const (
	ScreeningListSDN          = "SDN"
	ScreeningListConsolidated = "CONS" // OFAC's Consolidated Sanctions List (non-SDN)
)

// ScreeningHit is one listed party a payee matched.
type ScreeningHit struct {
	EntryUID    string   `json:"entry_uid"` // the list and OFAC's ent_num: SDN-36, CONS-1234
	List        string   `json:"list"`      // SDN or CONS (the Consolidated non-SDN list)
	EntryName   string   `json:"entry_name"`
	MatchedName string   `json:"matched_name"` // the entry's name or alias that matched
	Programs    []string `json:"programs"`
	Score       float64  `json:"score"` // 0 to 1
	Created     Time     `json:"created"`
	// Released says an operator let the payee be paid despite the hit: who (ReleasedBy), why
	// (ReleaseReason) and when.
	Released      bool   `json:"released"`
	ReleasedBy    string `json:"released_by,omitempty"`
	ReleaseReason string `json:"release_reason,omitempty"`
	ReleasedAt    *Time  `json:"released_at,omitempty"`
}
