package store

// SetPGWalkAbove sets the number of matches above which PostgreSQL walks
// the leads for the newest (pgWalkAbove) until the test ends, so a test
// can take either way with a few leads.
func SetPGWalkAbove(t interface{ Cleanup(func()) }, n int) {
	old := pgWalkAbove
	pgWalkAbove = n
	t.Cleanup(func() { pgWalkAbove = old })
}
