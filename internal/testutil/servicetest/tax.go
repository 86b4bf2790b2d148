package servicetest

import "github.com/disburse/disburse/payouts"

// Payer is an app's compliance details as tests of the year-end 1099-NEC forms set them: the
// payer's block, Acme Payments Inc, EIN 98-7654321, Austin TX, phone 5125550100.
func Payer() payouts.BusinessCompliance {
	address := payouts.PostalAddress{Line1: "1 Road", City: "Austin", State: "TX", Zip: "73301", Country: "US"}
	return payouts.BusinessCompliance{
		CompanyInfo: payouts.CompanyInfo{Name: "Acme Payments Inc", EIN: "987654321", IncorporationDate: "2020-01-02",
			IncorporationState: "TX", IncorporationType: "c_corporation", Website: "https://acme.test"},
		ContactInfo: payouts.ContactInfo{Email: "tax@acme.test", PhoneNumber: "5125550100", PostalAddress: address},
		Directors: []payouts.Director{{FirstName: "Bo", LastName: "Li", Title: "CEO", Email: "bo@acme.test",
			Phone: "5125550101", DOB: "1979-05-06", OwnershipPercentage: "100", Address: address}},
		FlowOfFunds: payouts.FlowOfFunds{Reasons: "contractors", Usage: "payouts"},
	}
}
