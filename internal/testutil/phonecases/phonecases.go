// Package phonecases is the table of phone numbers the tests read, as typed and as they must
// be kept.
package phonecases

// Case is a number as typed, with the country code field beside it, and what it must be
// read as: its E.164 form and the country it is written in, or the field its problem names.
type Case struct {
	Name, CC, Number string
	E164, National   string // "" when the number is refused
	ProblemField     string // "phone_number" or "country_code" when refused
}

// All are the numbers of issue 45 and more from several countries: payouts' tests parse them,
// the service's run them through the store on both engines.
var All = []Case{
	// The issue's: the country is kept, and a four-digit number is no number.
	{"UK landline keeps its country", "", "+44 20 7946 0958", "+442079460958", "020 7946 0958 (GB)", ""},
	{"India mobile keeps its country", "", "+91 98512 34567", "+919851234567", "098512 34567 (IN)", ""},
	{"UK with a US code field", "1", "+44 20 7946 0958", "+442079460958", "020 7946 0958 (GB)", ""},
	{"too short", "1", "1234", "", "", "phone_number"},
	// United States and Canada.
	{"US, parentheses", "1", "(415) 555-2671", "+14155552671", "(415) 555-2671 (US)", ""},
	{"US, dots", "1", "415.555.2671", "+14155552671", "(415) 555-2671 (US)", ""},
	{"US, trunk 1 typed", "1", "1 415 555 2671", "+14155552671", "(415) 555-2671 (US)", ""},
	{"US, unspaced E.164", "", "+14155552671", "+14155552671", "(415) 555-2671 (US)", ""},
	{"US, no code field", "", "202-555-0123", "+12025550123", "(202) 555-0123 (US)", ""},
	{"US code written +1", "+1", "408 234 1234", "+14082341234", "(408) 234-1234 (US)", ""},
	{"Canada", "1", "514 555 0123", "+15145550123", "(514) 555-0123 (CA)", ""},
	{"US, seven digits", "1", "555-0100", "", "", "phone_number"},
	// Europe.
	{"UK mobile, national with code field", "44", "07911 123456", "+447911123456", "07911 123456 (GG)", ""},
	{"France mobile", "33", "06 12 34 56 78", "+33612345678", "06 12 34 56 78 (FR)", ""},
	{"Germany mobile", "", "+49 1512 3456789", "+4915123456789", "01512 3456789 (DE)", ""},
	{"Italy landline keeps its 0", "39", "06 1234 5678", "+390612345678", "06 1234 5678 (IT)", ""},
	{"Italy mobile", "", "+39 312 345 6789", "+393123456789", "312 345 6789 (IT)", ""},
	{"Spain mobile", "34", "612 34 56 78", "+34612345678", "612 34 56 78 (ES)", ""},
	{"Netherlands mobile", "", "+31 6 12345678", "+31612345678", "06 12345678 (NL)", ""},
	{"Sweden mobile", "46", "070-123 45 67", "+46701234567", "070-123 45 67 (SE)", ""},
	// Asia, Oceania, the Americas, Africa.
	{"India, national with code field", "91", "098512 34567", "+919851234567", "098512 34567 (IN)", ""},
	{"Japan landline", "", "+81 3-1234-5678", "+81312345678", "03-1234-5678 (JP)", ""},
	{"China mobile", "86", "138 1234 5678", "+8613812345678", "138 1234 5678 (CN)", ""},
	{"Singapore mobile", "", "+65 9123 4567", "+6591234567", "9123 4567 (SG)", ""},
	{"South Korea landline", "82", "02-1234-5678", "+82212345678", "02-1234-5678 (KR)", ""},
	{"Australia mobile", "61", "0412 345 678", "+61412345678", "0412 345 678 (AU)", ""},
	{"Brazil mobile", "", "+55 11 98765-4321", "+5511987654321", "(11) 98765-4321 (BR)", ""},
	{"Mexico", "52", "55 1234 5678", "+525512345678", "55 1234 5678 (MX)", ""},
	{"South Africa mobile", "", "+27 82 123 4567", "+27821234567", "082 123 4567 (ZA)", ""},
	{"Nigeria mobile", "234", "0803 123 4567", "+2348031234567", "0803 123 4567 (NG)", ""},
	// Refused.
	{"letters", "1", "415-CALL-NOW", "", "", "phone_number"},
	{"no such calling code", "999", "4155552671", "", "", "country_code"},
	{"calling code not digits", "x1", "4155552671", "", "", "country_code"},
	{"UK number too long", "", "+44 20 7946 0958 12", "", "", "phone_number"},
	{"a plus alone", "", "+", "", "", "phone_number"},
}
