import Glibc

/// The calling thread's identity, for state kept per thread (a `pthread_t` as a number).
public func callingThread() -> UInt { UInt(pthread_self()) }
