package payouts

import "strings"

// IDLookup is what GET /v2/id-lookup?prefix= found: the ids of the app's users, payout links,
// transfers and flows that begin with the prefix, at most IDLookupLimit of each, in id order.
// Our extension: lists show an object's short id (its first 8 characters), and this finds the
// object again from it.
type IDLookup struct {
	Users       []string `json:"users"`
	PayoutLinks []string `json:"payout_links"`
	Transfers   []string `json:"transfers"`
	Flows       []string `json:"flows"`
}

// IDLookupLimit is the most ids of each kind an id lookup answers.
const IDLookupLimit = 10

// MinIDPrefix is the shortest prefix an id lookup takes: the short id lists show.
const MinIDPrefix = 8

// NormalizeIDPrefix returns the prefix lower-cased, as ids are written, or an invalid-input error
// unless it is the beginning of an id (8-4-4-4-12 hex digits) of at least MinIDPrefix characters.
func NormalizeIDPrefix(prefix string) (string, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	ok := len(prefix) >= MinIDPrefix && len(prefix) <= 36
	for i := 0; ok && i < len(prefix); i++ {
		switch i {
		case 8, 13, 18, 23:
			ok = prefix[i] == '-'
		default:
			ok = isHex(prefix[i])
		}
	}
	if !ok {
		return "", Problems{"prefix": "must be the beginning of an id, at least its first 8 hexadecimal digits"}.Err()
	}
	return prefix, nil
}
