import Foundation
import Sluice

/// The app's settings: the state of the `settings` store, persisted by the tour.
struct Settings: Codable, Equatable, Sendable {
  enum Theme: String, Codable, Sendable, CustomStringConvertible {
    case light, dark
    var description: String { rawValue }
  }

  var theme = Theme.light
  /// How many tours finished with this state, and when the last one did.
  var toursFinished = 0
  var lastTourFinishedAt: Date?
}

struct ChangeTheme: Action { let theme: Settings.Theme }
struct TourFinished: Action { let at: Date }

extension Settings {
  static let reducer = Reducer<Settings>()
    .on(ChangeTheme.self) { settings, action in settings.theme = action.theme }
    .on(TourFinished.self) { settings, action in
      settings.toursFinished += 1
      settings.lastTourFinishedAt = action.at
    }
}
