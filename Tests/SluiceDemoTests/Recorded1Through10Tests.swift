// swift-format-ignore-file
// Recorded by Sluice Inspector: records 1 through 10 of the lane "sluice-demo".
// Each test starts a TestStore from a store's state before the range, sends the actions it
// reduced, in order (receiving those its effects dispatched, where the test runs them), and
// asserts the properties each one changed.
import Foundation
import Sluice
import SluiceTesting
import Testing
@testable import SluiceDemo

@Test func todoListReplaysRecords1Through10() async {
  let store = TestStore(
    initialState: TodoList(items: [], nextID: 1),
    reducer: TodoList.reducer)
  // #1 AddTodo, dispatched at SluiceDemoTests/InspectRecordedTestTests.swift:19, from outside
  await store.send(AddTodo(title: "Buy milk", request: nil)) {
    $0.items = [Todo(id: 1, title: "Buy milk", isDone: false, request: nil)]
    $0.nextID = 2
  }
  // #2 AddTodo, dispatched at SluiceDemoTests/InspectRecordedTestTests.swift:20, from outside
  await store.send(AddTodo(title: "Walk the dog", request: nil)) {
    $0.items = [
      Todo(id: 1, title: "Buy milk", isDone: false, request: nil),
      Todo(id: 2, title: "Walk the dog", isDone: false, request: nil),
    ]
    $0.nextID = 3
  }
  // #4 CompleteTodo, dispatched at SluiceDemoTests/InspectRecordedTestTests.swift:22, from outside
  await store.send(CompleteTodo(id: 1)) {
    $0.items = [
      Todo(id: 1, title: "Buy milk", isDone: true, request: nil),
      Todo(id: 2, title: "Walk the dog", isDone: false, request: nil),
    ]
  }
  // #6 ClearCompleted, dispatched at SluiceDemoTests/InspectRecordedTestTests.swift:24, from outside
  await store.send(ClearCompleted()) {
    $0.items = [Todo(id: 2, title: "Walk the dog", isDone: false, request: nil)]
  }
}

@Test func sessionReplaysRecords1Through10() async {
  let store = TestStore(
    initialState: Session(profile: Loadable<Profile>.idle, progress: 0.0),
    reducer: Session.reducer,
    effects: Session.effects(steps: 2, pause: .zero))
  // #7 SignIn, dispatched at SluiceDemoTests/InspectRecordedTestTests.swift:26, from outside
  await store.send(SignIn(name: "Ada")) {
    $0.profile = Loadable<Profile>.loading()
  }
  // #8 SignInProgressed, dispatched at SluiceDemo/Session.swift:33, by the effect on SignIn of record 7
  await store.receive(SignInProgressed.self) {
    $0.progress = 0.5
  }
  // #9 SignInProgressed, dispatched at SluiceDemo/Session.swift:33, by the effect on SignIn of record 7
  await store.receive(SignInProgressed.self) {
    $0.progress = 1.0
  }
  // #10 SignedIn, dispatched at Sluice/Effects+Load.swift:73, by the effect on SignIn of record 7
  await store.receive(SignedIn.self) {
    $0.profile = Loadable<Profile>.loaded(Profile(name: "Ada"))
  }
  await store.finish()
}

@Test func settingsReplaysRecords1Through10() async {
  let store = TestStore(
    initialState: Settings(theme: .light, toursFinished: 0, lastTourFinishedAt: nil),
    reducer: Settings.reducer)
  // #3 ChangeTheme, dispatched at SluiceDemoTests/InspectRecordedTestTests.swift:21, from outside
  await store.send(ChangeTheme(theme: .dark)) {
    $0.theme = .dark
  }
  // #5 TourFinished, dispatched at SluiceDemoTests/InspectRecordedTestTests.swift:23, from outside
  await store.send(TourFinished(at: Date(timeIntervalSinceReferenceDate: 812000000.0))) {
    $0.toursFinished = 1
    $0.lastTourFinishedAt = Date(timeIntervalSinceReferenceDate: 812000000.0)
  }
}
