package fn

// Volatile reports whether an overload of the function name is volatile:
// its value may change from call to call within one statement, so equal
// arguments do not promise an equal result.
func Volatile(name string) bool {
	for _, o := range funcs[name] {
		if o.Volatile {
			return true
		}
	}
	return false
}
