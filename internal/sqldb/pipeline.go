package sqldb

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Stmt is a statement with what reads its answer: Row is called with each row it returns, Done
// with how many rows it changed (or returned) once it ran. Either may be nil.
type Stmt struct {
	Query string // with ? placeholders
	Args  []any
	Row   func(scan func(dest ...any) error) error
	Done  func(rows int64) error
}

// Pipeline sends stmts to PostgreSQL in the batch's transaction in one round trip, then reads
// their answers in order; the first error is returned, and the statements after a failed one
// fail with it (the transaction is then aborted, and the batch with it). Only on PostgreSQL.
func (b *Batch) Pipeline(ctx context.Context, stmts []Stmt) error {
	if b.conn == nil {
		return errors.New("sqldb: a pipeline needs the batch's connection")
	}
	return b.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return errors.New("sqldb: a pipeline needs a PostgreSQL connection")
		}
		var pb pgx.Batch
		for _, s := range stmts {
			pb.Queue(Rebind(Postgres, s.Query), s.Args...)
		}
		results := c.Conn().SendBatch(ctx, &pb)
		err := readPipeline(results, stmts)
		return errors.Join(err, results.Close())
	})
}

func readPipeline(results pgx.BatchResults, stmts []Stmt) error {
	for _, s := range stmts {
		rows, err := results.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			if s.Row == nil {
				continue
			}
			if err := s.Row(rows.Scan); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if s.Done != nil {
			if err := s.Done(rows.CommandTag().RowsAffected()); err != nil {
				return err
			}
		}
	}
	return nil
}
