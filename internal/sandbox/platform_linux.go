package sandbox

func platformSupported() error { return nil }
