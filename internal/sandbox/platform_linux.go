package sandbox

func platformSupported() error { return nil }

func platformProbe() error { return bwrapProbe() }

// platformCommand is bwrap with its arguments for p, ending in "--".
func platformCommand(p Policy, tmp, dir string) (prog string, args []string, err error) {
	bwrap, err := findBwrap()
	if err != nil {
		return "", nil, err
	}
	return bwrap, append(Args(p, tmp, dir), "--"), nil
}
