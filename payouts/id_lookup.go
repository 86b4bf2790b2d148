package payouts

import "strings"

// IDLookup is what GET /v2/id-lookup?id= found: the ids of the app's users, payout links,
// transfers and flows that begin with the text or whose short id it is, at most IDLookupLimit of
// each. Our extension: lists show an object's short id, and this finds the object again from it.
type IDLookup struct {
	Users       []string `json:"users"`
	PayoutLinks []string `json:"payout_links"`
	Transfers   []string `json:"transfers"`
	Flows       []string `json:"flows"`
}

// IDLookupLimit is the most ids of each kind an id lookup answers.
const IDLookupLimit = 10

// ShortIDLength is the length of a short id, and the shortest beginning of an id a lookup takes.
const ShortIDLength = 8

// ShortID is how lists name an object: the last 8 hexadecimal digits of its id. They differ from
// one object to the next in every id the service makes (random, or for a transfer two random
// digits and then a count of the app's transfers, lowest digit first), where the first 8 digits of
// a time-ordered id (UUIDv7) are the same for every object made in the same minute or so.
func ShortID(id string) string {
	if len(id) > ShortIDLength {
		return id[len(id)-ShortIDLength:]
	}
	return id
}

// NormalizeIDQuery returns what an id lookup looks for, lower-cased as ids are written, or an
// invalid-input error unless it is a short id or the beginning of an id (8-4-4-4-12 hexadecimal
// digits) of at least ShortIDLength characters.
func NormalizeIDQuery(text string) (string, error) {
	text = strings.ToLower(strings.TrimSpace(text))
	ok := len(text) >= ShortIDLength && len(text) <= 36
	for i := 0; ok && i < len(text); i++ {
		switch i {
		case 8, 13, 18, 23:
			ok = text[i] == '-'
		default:
			ok = isHex(text[i])
		}
	}
	if !ok {
		return "", Problems{"id": "must be a short id (the last 8 hexadecimal digits of an id) or the beginning of an id, at least 8 characters"}.Err()
	}
	return text, nil
}
