// The switch of the second e2e run (jest.config.js): every test database's event log on an EventStoreDB double.
process.env.MDS_TEST_EVENT_LOG = 'esdb-double';
