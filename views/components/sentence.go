package components

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// plainWords are the sentences for the problems whose fragment says too little or too much
// jargon; %s is the field's label, lower-cased.
var plainWords = map[string]string{
	"is required":                              "Enter the %s.",
	"is not a valid email address":             "Enter an email address like name@example.com.",
	"is not a valid id":                        "That is not a valid %s. Copy the whole id from its page.",
	"is not the token we sent":                 "That code is not the one we sent. Check the latest message and try again.",
	"too many wrong tokens; request a new one": "That code was wrong too many times. Ask for a new code.",
	"no valid token: it expired or was never sent; request a new one":                   "That code has expired. Ask for a new code.",
	"must be at least 6 characters":                                                     "Enter all 6 digits of the code.",
	"give phone_number or handle for venmo":                                             "Enter the phone number or the handle of the Venmo account.",
	"must be true: the form is signed under penalty of perjury":                         "Tick the box to sign the form.",
	"is needed to run the background check":                                             "Tick the box to allow the background check.",
	"is not a valid phone number; write it with its country code, like +1 415 555 2671": "Enter a valid phone number, like (415) 513-2552, or one of another country with its code, like +44 20 7946 0958.",
	"must be a US mobile number for Venmo, like +1 415 555 2671":                        "Enter a US mobile number for Venmo, like (415) 513-2552.",
	"is not a country calling code":                                                     "Enter a country calling code, like 1 or 44.",
}

// Sentence is what a form shows for a field's problem. The service and the stores answer with
// lower-case fragments written for developers ("is required", "must be 1 to 3 digits"); a
// person reads a sentence in plain words ("Enter the first name.", "Country calling code must
// be 1 to 3 digits."). The wording lives here so the API's fields keep theirs.
func Sentence(label, problem string) string {
	problem = strings.TrimSpace(problem)
	if problem == "" {
		return ""
	}
	if s, ok := plainWords[problem]; ok && (label != "" || !strings.Contains(s, "%s")) {
		return strings.Replace(s, "%s", lowerFirst(label), 1)
	}
	if label == "" {
		label = "This field"
	}
	for _, verb := range []string{"is ", "must ", "has "} {
		if strings.HasPrefix(problem, verb) {
			problem = label + " " + problem
			break
		}
	}
	r, size := utf8.DecodeRuneInString(problem)
	problem = string(unicode.ToUpper(r)) + problem[size:]
	if !strings.ContainsAny(problem[len(problem)-1:], ".!?") {
		problem += "."
	}
	return problem
}

// lowerFirst lower-cases a label's first letter for the middle of a sentence, but not an
// acronym's ("SSN").
func lowerFirst(label string) string {
	r, size := utf8.DecodeRuneInString(label)
	next, _ := utf8.DecodeRuneInString(label[size:])
	if unicode.IsUpper(next) {
		return label
	}
	return string(unicode.ToLower(r)) + label[size:]
}
