package components

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
