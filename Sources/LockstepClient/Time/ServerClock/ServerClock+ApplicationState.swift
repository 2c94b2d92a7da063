import Foundation

extension ServerClock {
    /// Whether the app is where its user sees it: ``ServerClock/calibrateContinuously()``
    /// exchanges only in the foreground, to spare the battery and the radio.
    public enum ApplicationState: Sendable, Hashable {
        /// On screen, or otherwise running for its user: continuous calibration runs.
        case foreground
        /// In the background: continuous calibration pauses (periodic rounds and ``resync()``
        /// still run when asked).
        case background
    }

    /// Whether the app is in the foreground; set it from the app's life cycle (Linux has none
    /// to follow). ``followApplicationNotifications()`` sets it from UIKit's notifications.
    ///
    /// ```swift
    /// clock.applicationState = .background   // scenePhase became .background
    /// ```
    public var applicationState: ApplicationState {
        get { state.withLock { $0.applicationState } }
        set {
            let changed = state.withLock { state in
                defer { state.applicationState = newValue }
                return state.applicationState != newValue
            }
            if changed { applicationStateChanged.signal() }
        }
    }

    /// Follows the app into and out of the background from UIKit's notifications
    /// (`UIApplication.didEnterBackgroundNotification` and
    /// `willEnterForegroundNotification`, on iOS, iPadOS, tvOS, visionOS and Mac Catalyst),
    /// until the clock goes away. Where nothing posts them (Linux, AppKit) it changes nothing:
    /// set ``applicationState`` instead. A ``LockstepClient`` does this for its clock.
    public func followApplicationNotifications() {
        // Registered under the lock: the observers (not `Sendable`) never leave it but to be removed.
        notificationObservers.withLock { observers in
            let center = NotificationCenter.default
            observers.append(center.addObserver(forName: Self.didEnterBackground, object: nil, queue: nil) { [weak self] _ in
                self?.applicationState = .background
            })
            observers.append(center.addObserver(forName: Self.willEnterForeground, object: nil, queue: nil) { [weak self] _ in
                self?.applicationState = .foreground
            })
        }
    }

    /// `UIApplication.didEnterBackgroundNotification`, by the name UIKit posts it under, so that
    /// this compiles (and can be tested) where UIKit is not.
    static let didEnterBackground = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    /// `UIApplication.willEnterForegroundNotification`, likewise.
    static let willEnterForeground = Notification.Name("UIApplicationWillEnterForegroundNotification")
}
