package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"reflect"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
)

// decode reads the JSON body of c into v, a request type of package payouts. It checks syntax
// only; the service validates what the fields say. Unknown fields are ignored, as docs/API.md
// promises; a missing Content-Type is tolerated, a non-JSON one is not.
func decode(c *fiber.Ctx, v any) error {
	if err := checkContentType(c); err != nil {
		return err
	}
	if err := decodeJSON(c.Body(), v); err != nil {
		return err
	}
	return idempotencyHeader(c, v)
}

// idempotencyHeader puts the Idempotency-Key header, when sent, into the request's
// idempotency_key field. A body that names another key is refused rather than guessed at.
func idempotencyHeader(c *fiber.Ctx, v any) error {
	key := c.Get("Idempotency-Key")
	if key == "" {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return nil
	}
	field := rv.Elem().FieldByName("IdempotencyKey")
	if !field.IsValid() || field.Kind() != reflect.String {
		return nil
	}
	if body := field.String(); body != "" && body != key {
		return payouts.FieldError("idempotency_key", "differs from the Idempotency-Key header")
	}
	field.SetString(key)
	return nil
}

// decodeOptional is decode for endpoints whose body may be left out entirely.
func decodeOptional(c *fiber.Ctx, v any) error {
	if len(bytes.TrimSpace(c.Body())) == 0 {
		return nil
	}
	return decode(c, v)
}

func checkContentType(c *fiber.Ctx) error {
	ct := c.Get(fiber.HeaderContentType)
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == fiber.MIMEApplicationJSON || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return payouts.Errorf(payouts.EInvalidInput, "Content-Type must be application/json.")
}

func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return malformed("the request body is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	// One JSON value per body: anything after it is a client bug we should not guess about.
	if _, err := dec.Token(); err != io.EOF {
		return malformed("unexpected data after the JSON object")
	}
	return nil
}

// decodeError turns what encoding/json reports into the API's invalid-input error, naming the
// field when the problem is a value of the wrong type.
func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return payouts.Errorf(payouts.EInvalidInput, "The request body must be a JSON object.")
		}
		return payouts.FieldError(typeErr.Field, typeProblem(typeErr))
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return malformed(err.Error())
	default:
		// An UnmarshalJSON method of a payouts type refused a value; its message is about the
		// client's input and safe to show.
		return payouts.Errorf(payouts.EInvalidInput, "%s", err.Error())
	}
}

func malformed(detail string) error {
	return payouts.Errorf(payouts.EInvalidInput, "malformed JSON: %s", detail)
}

// typeProblem says what the field should have held, in JSON's terms.
func typeProblem(e *json.UnmarshalTypeError) string {
	t := e.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if e.Field == "amount" || strings.HasSuffix(e.Field, ".amount") {
			return "must be a whole number of cents"
		}
		return "must be an integer"
	case reflect.Float32, reflect.Float64:
		return "must be a number"
	case reflect.String:
		return "must be a string"
	case reflect.Bool:
		return "must be true or false"
	case reflect.Slice, reflect.Array:
		return "must be an array"
	default:
		return "must be an object"
	}
}

// page reads the list parameters limit, starting_after and ending_before.
func page(c *fiber.Ctx) (payouts.Page, error) {
	return payouts.ParsePage(c.Query("limit"), c.Query("starting_after"), c.Query("ending_before"))
}

// boolQuery reads a query parameter that is true, false or absent (false); anything else is a
// 400 naming it.
func boolQuery(c *fiber.Ctx, name string) (bool, error) {
	switch c.Query(name) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, payouts.FieldError(name, "must be true or false")
}
