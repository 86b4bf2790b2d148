-- Phone numbers are read by payouts.ParsePhone (libphonenumber) since this migration: a user's
-- and a payee's are stored as their country's calling code and national significant number, a
-- Venmo method's in E.164 ("+14082341234"). Before, a Venmo method's number was stored as its
-- digits without its country: "+1 408 234 1234" and "+44 20 7946 0958" both lost their code.
-- Only the one unambiguous shape is rewritten here: eleven digits starting with 1, which only a
-- number typed "+1..." or "1..." without a space became. Every other number stays as stored and
-- is never guessed at: ten digits may be any country's national number. The service reads each
-- number with ParsePhone; one that is not valid (or a Venmo number without "+") needs review:
-- the dashboard says so beside it and the PayPal rail refuses to pay it until it is saved again.
UPDATE payout_methods SET phone_number = '+' || phone_number
WHERE platform = 'venmo' AND length(phone_number) = 11 AND phone_number GLOB '1[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]';
