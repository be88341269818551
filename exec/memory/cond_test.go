package memory

import ()

type refDivZero struct{}
