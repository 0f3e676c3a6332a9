'use strict';
module.exports = require('./lib/aws-sdk.cjs');
