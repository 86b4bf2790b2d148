package payouts

// PlatformRail says which rail pays out on a platform: "sandbox", or the provider payoutd was
// configured with for it ("paypal", ...).
type PlatformRail struct {
	Platform Platform `json:"platform"`
	Rail     string   `json:"rail"`
}

// Rails is the answer of GET /v2/rails, our extension: the rail of every platform.
type Rails struct {
	Rails []PlatformRail `json:"rails"`
	// SanctionsListLoaded is false while no sanctions list is loaded: nobody is screened.
	SanctionsListLoaded bool `json:"sanctions_list_loaded"`
}
