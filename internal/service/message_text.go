package service

import (
	htmltemplate "html/template"
	"io"
	"strings"
	texttemplate "text/template"

	"github.com/disburse/disburse/payouts"
)

// The words of every message the service sends, in one place: a payout link by email (a text
// part and an HTML part) and by SMS, and a one-time code. Each says whose it is (the app's name),
// and a link says how much, until when and where to claim it.

// linkText is what a payout link message says.
type linkText struct {
	App    string
	Amount string
	Note   string // the app's own message to the payee, if any
	Name   string // the payee's first name, if known
	URL    string
}

// codeText is what a code message says.
type codeText struct {
	App     string
	Code    string
	Purpose string // what the code is for, as the end of "Use it to ..."
	Minutes int
}

// codePurposes say what a code is for, by where it was asked for.
var codePurposes = map[codeUse]string{
	codeForPhone: "confirm your phone number",
	codeForClaim: "prove it is you and collect your payout",
}

// codeUse is where a code was asked for.
type codeUse int

const (
	codeForPhone codeUse = iota // the API's send-verification-token
	codeForClaim                // a hosted flow identifying its payee
)

var messageTemplates = struct {
	linkSubject, linkText, linkSMS, codeSubject, codeText *texttemplate.Template
	linkHTML                                              *htmltemplate.Template
}{
	linkSubject: texttemplate.Must(texttemplate.New("").Parse(`{{.App}} sent you {{.Amount}}`)),
	linkText: texttemplate.Must(texttemplate.New("").Parse(`Hi{{if .Name}} {{.Name}}{{end}},

{{.App}} sent you {{.Amount}}.
{{- if .Note}}

{{.App}} says: {{.Note}}
{{- end}}

Claim it here:
{{.URL}}

The link works until you claim the money or {{.App}} cancels the payment. Anyone holding it can
start a claim, so keep it to yourself; you will be asked for a code we send to you.
`)),
	linkSMS: texttemplate.Must(texttemplate.New("").Parse(`{{.App}} sent you {{.Amount}}.{{if .Note}} "{{.Note}}"{{end}} ` +
		`Claim it here until you claim it or {{.App}} cancels it: {{.URL}}`)),
	linkHTML: htmltemplate.Must(htmltemplate.New("").Parse(`<!doctype html>
<html><body style="font-family: sans-serif; color: #111827; line-height: 1.5">
<p>Hi{{if .Name}} {{.Name}}{{end}},</p>
<p><strong>{{.App}}</strong> sent you <strong>{{.Amount}}</strong>.</p>
{{- if .Note}}
<p>{{.App}} says: {{.Note}}</p>
{{- end}}
<p><a href="{{.URL}}" style="display: inline-block; padding: 10px 16px; background: #111827; color: #ffffff; text-decoration: none; border-radius: 6px">Claim {{.Amount}}</a></p>
<p>Or open this address: {{.URL}}</p>
<p style="color: #6b7280">The link works until you claim the money or {{.App}} cancels the payment. Anyone holding it can start a claim, so keep it to yourself; you will be asked for a code we send to you.</p>
</body></html>
`)),
	codeSubject: texttemplate.Must(texttemplate.New("").Parse(`Your {{.App}} verification code`)),
	codeText: texttemplate.Must(texttemplate.New("").Parse(`Your verification code is {{.Code}}. ` +
		`Use it to {{.Purpose}} with {{.App}}. It expires in {{.Minutes}} minutes. Never share it: {{.App}} will not ask you for it.`)),
}

// render runs a template the service defines on its own data: its only failure is a template
// that does not fit the data, which the table tests rule out, so it panics.
func render(t interface{ Execute(io.Writer, any) error }, data any) string {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		panic("message template: " + err.Error())
	}
	return b.String()
}

// linkMessage is the message that delivers a payout link by its delivery method.
func linkMessage(l *PayoutLinkRecord, appName, url string) Message {
	t := linkText{App: appName, Amount: l.Amount.String(), Note: strings.TrimSpace(l.Delivery.Message),
		Name: strings.TrimSpace(l.Payee.FirstName), URL: url}
	m := Message{AppID: l.AppID, AppName: appName, Channel: string(l.Delivery.Method), To: linkRecipient(l)}
	if l.Delivery.Method == payouts.DeliveryEmail {
		m.Subject = render(messageTemplates.linkSubject, t)
		m.Body = render(messageTemplates.linkText, t)
		m.HTML = render(messageTemplates.linkHTML, t)
		return m
	}
	m.Country = l.Payee.CountryCode
	m.Body = render(messageTemplates.linkSMS, t)
	return m
}

// linkRecipient is the address a link's message goes to: its payee's email, or phone for sms.
func linkRecipient(l *PayoutLinkRecord) string {
	if l.Delivery.Method == payouts.DeliveryEmail {
		return l.Payee.Email
	}
	return payouts.Phone{CountryCode: l.Payee.CountryCode, PhoneNumber: l.Payee.PhoneNumber}.String()
}

// codeMessage is the message that carries a one-time code.
func codeMessage(appID, appName string, to contact, code string, use codeUse) Message {
	t := codeText{App: appName, Code: code, Purpose: codePurposes[use], Minutes: int(tokenLifetime.Minutes())}
	return Message{AppID: appID, AppName: appName, Channel: to.channel, To: to.to, Country: to.country,
		Subject: render(messageTemplates.codeSubject, t), Body: render(messageTemplates.codeText, t)}
}
