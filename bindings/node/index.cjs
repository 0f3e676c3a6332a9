'use strict';
const { Ddbst, DdbstError, DynamoDBError, NumberText } = require('./lib/ddbst.cjs');
module.exports = { Ddbst, DdbstError, DynamoDBError, NumberText };
