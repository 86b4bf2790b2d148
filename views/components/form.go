package components

import "github.com/disburse/disburse/payouts"

// Form is the state of a submitted form: what was typed, and the problems to show. Field names
// are the API's (or the dashboard store's) field names, so the Fields of a *payouts.Error land
// on the right inputs.
type Form struct {
	Values  map[string]string
	Errors  map[string]string
	Message string // a problem that belongs to no single field
}

// Value returns what was typed in the field name.
func (f Form) Value(name string) string { return f.Values[name] }

// Error returns the problem with the field name, if any.
func (f Form) Error(name string) string { return f.Errors[name] }

// Field returns the props of a required text field of the form, with its value and problem.
func (f Form) Field(name, label string) FieldProps {
	return FieldProps{Name: name, Label: label, Value: f.Values[name], Error: f.Errors[name], Required: true}
}

// Optional returns the props of an optional text field of the form.
func (f Form) Optional(name, label string) FieldProps {
	p := f.Field(name, label)
	p.Required = false
	return p
}

// FilterField returns the props of a text field of a filter form (FilterForm).
func (f Form) FilterField(name, label string) FieldProps {
	p := f.Optional(name, label)
	p.Filter = true
	return p
}

// Changes to the props of a field, for the settings Form.Field leaves alone: each returns a
// copy, so that a template can chain them.

// WithType sets the input's type, such as email or date.
func (f FieldProps) WithType(typ string) FieldProps { f.Type = typ; return f }

// WithHint sets the help shown under the field.
func (f FieldProps) WithHint(hint string) FieldProps { f.Hint = hint; return f }

// WithInputMode sets the keyboard a phone shows, such as numeric or tel.
func (f FieldProps) WithInputMode(mode string) FieldProps { f.InputMode = mode; return f }

// WithAutocomplete says what the browser may fill the field with.
func (f FieldProps) WithAutocomplete(v string) FieldProps { f.Autocomplete = v; return f }

// WithPlaceholder sets the text shown in the empty field.
func (f FieldProps) WithPlaceholder(v string) FieldProps { f.Placeholder = v; return f }

// WithPrefix gives a field ids of its own, for a page with another form's field of that name.
func (f FieldProps) WithPrefix(prefix string) FieldProps { f.Prefix = prefix; return f }

// TreatyIncomeTypes are the choices of a W-8BEN's treaty income type, none claimed first.
func TreatyIncomeTypes() []Option {
	options := []Option{{Value: "", Label: "None claimed"}}
	for _, t := range payouts.TreatyIncomeTypes {
		options = append(options, Option{Value: t, Label: t})
	}
	return options
}

// CashAppNumbersHint says where a payee finds the routing and account numbers a Cash App method
// needs (the public model requires them beside the cashtag): Cash App's own, not their bank's.
const CashAppNumbersHint = "Cash App's own numbers, not your bank's: in Cash App, tap Money, then Account & routing."
